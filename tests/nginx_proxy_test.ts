/**
 * Slow clients, the part the reverse proxy does: deploy/nginx.conf itself (only its
 * paths, ports and certificate swapped for test ones, each swap checked) runs in front of the real
 * service, over TLS with a certificate made for the test. A request head trickled a byte at a time is cut
 * by client_header_timeout (Deno.serve has no header timeout), an oversized declared body is refused
 * by nginx, and ordinary requests pass. Debian's nginx comes from tasks/prepare_tests.ts; missing, this
 * test fails with the command to install it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CODE } from "@/routes/api/codes.ts";
import { NGINX_PATH, nginxInstallCommand } from "@/tasks/prepare_tests.ts";
import { RawConnection } from "@/tests/helpers/raw_http.ts";
import { waitFor } from "@/tests/helpers/races.ts";
import { serveWithSessions } from "@/tests/helpers/served_sessions.ts";

const CONFIG = new URL("../deploy/nginx.conf", import.meta.url);
/** deploy/nginx.conf's client_header_timeout, read from the file (so the test follows the file). */
const HEADER_TIMEOUT_S = Number(/client_header_timeout (\d+)s;/.exec(Deno.readTextFileSync(CONFIG))![1]);

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** `text` with `from` replaced; throws when `from` is not there, so a changed file fails loudly here. */
function swap(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`deploy/nginx.conf no longer contains ${from}: update this test`);
  return out;
}

async function run(command: string, args: string[]) {
  const { code, stderr } = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" })
    .output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
}

/** A self-signed certificate for 127.0.0.1 and localhost, written under `dir`. */
async function makeCertificate(dir: string) {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
    "-addext",
    "basicConstraints=critical,CA:FALSE",
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  return { cert, key, pem: await Deno.readTextFile(cert) };
}

/** deploy/nginx.conf with this test's paths and ports. */
function testConfig(
  dir: string,
  ports: { http: number; https: number; service: number },
  tls: { cert: string; key: string },
) {
  let text = Deno.readTextFileSync(CONFIG);
  // As root the workers run as root (they write the temp directories below); otherwise the line is moot.
  text = swap(text, "user www-data;", Deno.uid() === 0 ? "user root;" : "");
  text = swap(text, "pid /run/nginx.pid;", `pid ${dir}/nginx.pid;`);
  text = swap(text, "error_log /var/log/nginx/error.log warn;", `error_log ${dir}/error.log warn;`);
  text = swap(
    text,
    "access_log /var/log/nginx/access.log;",
    [
      `access_log ${dir}/access.log;`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `${t}_temp_path ${dir}/${t};`),
    ].join("\n    "),
  );
  text = swap(text, "listen 80;", `listen 127.0.0.1:${ports.http};`);
  text = swap(text, "listen 443 ssl;", `listen 127.0.0.1:${ports.https} ssl;`);
  text = swap(text, /ssl_certificate \S+;/, `ssl_certificate ${tls.cert};`);
  text = swap(text, /ssl_certificate_key \S+;/, `ssl_certificate_key ${tls.key};`);
  text = swap(text, "server 127.0.0.1:8000;", `server 127.0.0.1:${ports.service};`);
  return text;
}

Deno.test({
  name: "nginx (deploy/nginx.conf) in front of the service: a trickled request head is cut, requests pass",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    try {
      await Deno.stat(NGINX_PATH);
    } catch {
      assert.fail(`nginx is missing at ${NGINX_PATH} (needed by this test); run: ${nginxInstallCommand()}`);
    }
    const served = await serveWithSessions("pglite", { TRUSTED_PROXIES: "127.0.0.1" });
    const dir = await Deno.makeTempDir({ prefix: "pm-nginx-" });
    let nginx: Deno.ChildProcess | undefined;
    try {
      const tls = await makeCertificate(dir);
      const ports = {
        http: freePort(),
        https: freePort(),
        service: Number(new URL(served.service.url).port),
      };
      const conf = join(dir, "nginx.conf");
      await Deno.writeTextFile(conf, testConfig(dir, ports, tls));
      await run(NGINX_PATH, ["-t", "-q", "-p", dir, "-c", conf, "-e", join(dir, "error.log")]);
      nginx = new Deno.Command(NGINX_PATH, {
        args: ["-p", dir, "-c", conf, "-e", join(dir, "error.log"), "-g", "daemon off;"],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const https = `https://127.0.0.1:${ports.https}`;
      const client = Deno.createHttpClient({ caCerts: [tls.pem] });
      const get = (path: string, init: RequestInit = {}) =>
        fetch(`${https}${path}`, { ...init, client } as RequestInit);
      for (let i = 0;; i++) {
        try {
          const res = await get("/healthz");
          await res.body?.cancel();
          if (res.ok) break;
        } catch (error) {
          if (i > 100) throw error;
        }
        await new Promise((r) => setTimeout(r, 100));
      }

      // Ordinary requests pass: a page, a JSON post with its body, the redirect from plain http.
      const health = await get("/healthz");
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const handler = await get("/api/handler?publickey=wrong", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ payload: {} }),
      });
      assert.equal(handler.status, 401, "the app's answer: the body went through");
      assert.equal((await handler.json()).code, CODE.badPublicKey);
      const plain = await fetch(`http://127.0.0.1:${ports.http}/tablet`, { redirect: "manual" });
      assert.equal(plain.status, 301);
      assert.match(plain.headers.get("location")!, /^https:\/\//);
      await plain.body?.cancel();

      // A declared body over client_max_body_size: nginx answers 413 without passing it on.
      const big = await get("/api/handler?publickey=wrong", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "x".repeat(100 * 1024),
      });
      assert.equal(big.status, 413);
      assert.match(await big.text(), /nginx|Request Entity Too Large/);

      // A request head trickled a byte every 500 ms: cut because client_header_timeout ran out. Asserted
      // by cause and order, not by duration: nginx took bytes for a while (the head was not refused), the
      // cut came no sooner than the timeout after the connection opened, and nginx logged the request as
      // timed out (408 in the access log, its status for client_header_timeout). The test fails, instead of
      // waiting for ever, when the head is still open a minute after the timeout.
      const opening = performance.now();
      const conn = await RawConnection.open(https, [tls.pem]);
      await conn.write(`GET /healthz?trickled=${ports.http} HTTP/1.1\r\nHost: localhost\r\n`);
      const failAfter = opening + (HEADER_TIMEOUT_S + 60) * 1000;
      let taken = 0;
      while (!conn.ended && performance.now() < failAfter) {
        if (await conn.write("X")) taken++;
        await Promise.race([conn.closed, new Promise((r) => setTimeout(r, 500))]);
      }
      const cutAfter = performance.now() - opening;
      const cut = conn.ended;
      conn.close();
      assert.ok(cut, `the trickled head was still open after ${Math.round(cutAfter)} ms`);
      assert.equal(conn.answer().status, null, "nginx closes without an answer");
      assert.ok(taken >= 2, `nginx took ${taken} trickled bytes before the cut`);
      // nginx's timer starts at its accept, after \`opening\`; a second off for nginx's cached clock.
      assert.ok(
        cutAfter >= (HEADER_TIMEOUT_S - 1) * 1000,
        `cut after ${Math.round(cutAfter)} ms, before client_header_timeout (${HEADER_TIMEOUT_S} s)`,
      );
      const timedOut = new RegExp(`"GET /healthz\\?trickled=${ports.http} HTTP/1\\.1" 408 `);
      const accessLog = () => Deno.readTextFile(join(dir, "access.log")).catch(() => "");
      await waitFor(
        async () => timedOut.test(await accessLog()),
        10_000,
        "the 408 line in nginx's access log",
      )
        .catch(async (e) => assert.fail(`${e.message}:\n${await accessLog()}`));
      console.log(`nginx: trickled request head cut after ${(cutAfter / 1000).toFixed(1)} s`);
      client.close();
    } finally {
      try {
        nginx?.kill("SIGTERM");
        await nginx?.status;
      } catch { /* already gone */ }
      await served.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
