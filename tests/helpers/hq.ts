/**
 * Dashboard test helpers: a signed-in client for `app.request` (a session row made directly, so tests do
 * not pay for PIN hashing), form posts carrying the page's CSRF token, and HTML text helpers.
 */
import type { Role, User } from "@/db/schema.ts";
import { ensureAssets, getAssets } from "@/render/assets.ts";
import { hashToken } from "@/io/tokens.ts";
import { hashPin } from "@/io/pin.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import type { Db } from "@/db/client.ts";
import type { TestApp } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";

let assets: Promise<unknown> | undefined;
/**
 * Pages link the built stylesheet, so a manifest must exist. Route tests only read HTML: any existing build
 * will do (no rebuild per source change); a fresh clone builds once. Browser tests call ensureAssets().
 */
export function withAssets(): Promise<unknown> {
  assets ??= getAssets().catch(() => ensureAssets({ log: () => {} }));
  return assets;
}

/** The dashboard password of staff made by makeStaff (passes lib/passwords/rules.ts). */
export const TEST_PASSWORD = "tinned-peaches-on-bay-7";
// PBKDF2 is slow on purpose: hash the test password once per process.
let passwordHash: Promise<string> | undefined;
export const testPasswordHash = () => (passwordHash ??= hashPin(TEST_PASSWORD));

/** A dispatcher (or admin) who signs in to the dashboard with TEST_PASSWORD. */
export async function makeStaff(
  a: TestApp,
  opts: { role?: "dispatcher" | "admin"; email?: string; active?: boolean } = {},
): Promise<User> {
  return await makeUser(a.db, {
    role: opts.role ?? "dispatcher",
    ...opts,
    passwordHash: await testPasswordHash(),
  });
}

/** A form post to the dashboard's sign-in, from this site (Origin), as a browser sends it. */
export async function postSignIn(
  a: TestApp,
  fields: Record<string, string>,
  cookie = "",
): Promise<Response> {
  await withAssets();
  return await a.app.request("/hq/sign-in", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: "http://localhost",
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

export interface HqClient {
  user: User;
  csrf: string;
  cookie: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A form post with the session's CSRF token (unless `_csrf` is given). */
  post(path: string, fields?: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  request(path: string, init?: RequestInit): Promise<Response>;
}

export async function signedIn(a: TestApp, role: Role, user?: User): Promise<HqClient> {
  await withAssets();
  const u = user ?? await makeUser(a.db, { role });
  const { token, csrf } = await makeSession(a.db, u.id, a.clock.now());
  return client(a, u, `${sessionCookie(a.config).name}=${token}`, csrf);
}

/** A session row for the user, started at `now`, made directly (no PIN check): its token and CSRF token. */
export async function makeSession(
  db: Db,
  userId: number,
  now: Date,
): Promise<{ token: string; csrf: string }> {
  const token = crypto.randomUUID();
  const csrf = crypto.randomUUID();
  await db.insertInto("sessions").values({
    token_hash: hashToken(token),
    user_id: userId,
    csrf_token: csrf,
    created_at: now,
    last_seen_at: now,
  }).execute();
  return { token, csrf };
}

export function anonymous(a: TestApp): Omit<HqClient, "user" | "csrf"> {
  const c = client(a, null as unknown as User, "", "");
  return { cookie: "", get: c.get, post: c.post, request: c.request };
}

function client(a: TestApp, user: User, cookie: string, csrf: string): HqClient {
  const request = async (path: string, init: RequestInit = {}) => {
    await withAssets();
    const headers = new Headers(init.headers);
    if (cookie) headers.set("cookie", cookie);
    return await a.app.request(path, { ...init, headers, redirect: "manual" });
  };
  return {
    user,
    csrf,
    cookie,
    request,
    get: (path, headers = {}) => request(path, { headers }),
    post: (path, fields = {}, headers = {}) =>
      request(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ _csrf: csrf, ...fields }),
      }),
  };
}

/** The visible text of an HTML page, tags dropped and whitespace collapsed (entities for & < > " '). */
export function textOf(html: string): string {
  return html.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<[^>]+>/g, " ")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&").replace(/\s+/g, " ").trim();
}

/** Asserts an HTML answer and returns its text. */
export async function pageText(res: Response, status = 200): Promise<string> {
  const body = await res.text();
  if (res.status !== status) {
    throw new Error(`expected HTTP ${status}, got ${res.status}: ${body.slice(0, 500)}`);
  }
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("text/html")) throw new Error(`expected HTML, got ${type}`);
  return textOf(body);
}
