/**
 * A depot tablet for route tests: enrolled as a tablet before its first request (unless made with
 * `{ enrolled: false }`: a stranger's browser), keeps the session and device cookies like a browser, signs
 * in through the PIN form and calls the tablet's JSON endpoints with the CSRF token.
 */
import { ensureAssets } from "@/render/assets.ts";
import { hashPin } from "@/io/pin.ts";
import { enrolDevice } from "@/lib/devices.ts";
import { deviceCookie } from "@/routes/web/device.ts";
import type { TestApp } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import type { Role } from "@/db/schema.ts";

export const TEST_PIN = "4821";
// PBKDF2 is slow on purpose: hash the test PIN once per process.
let pinHash: Promise<string> | undefined;
export const testPinHash = () => (pinHash ??= hashPin(TEST_PIN));

export async function makeDriver(a: TestApp, opts: { role?: Role; name?: string; active?: boolean } = {}) {
  return await makeUser(a.db, {
    role: opts.role ?? "driver",
    name: opts.name,
    active: opts.active,
    pinHash: await testPinHash(),
  });
}

let assets: Promise<unknown> | undefined;

export class Tablet {
  /** The session cookie (`name=value`), "" when signed out. */
  cookie = "";
  /** The device cookie (`name=value`), "" when not enrolled. */
  device = "";
  /** The enrolled device's id (0 before enrolment). */
  deviceId = 0;
  csrf = "";
  private enrolled: boolean;
  constructor(readonly a: TestApp, opts: { enrolled?: boolean } = {}) {
    this.enrolled = opts.enrolled === false;
  }

  /** Enrols this tablet as an admin would (lib/devices.ts), giving it the device cookie. */
  async enrol(name = "Test tablet"): Promise<void> {
    this.enrolled = true;
    const { device, token } = await enrolDevice(this.a.db, this.a.clock, { name, enrolledBy: null });
    this.device = `${deviceCookie(this.a.config).name}=${token}`;
    this.deviceId = device.id;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    if (!this.enrolled) await this.enrol();
    // Tablet pages name their islands, so the build must be current (a no-op when it is).
    await (assets ??= ensureAssets({ log: () => {} }));
    const headers = new Headers(init.headers);
    const cookies = [this.cookie, this.device].filter(Boolean).join("; ");
    if (cookies) headers.set("cookie", cookies);
    const res = await this.a.app.request(`http://localhost${path}`, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = pair.split("=");
      const expired = /max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === "";
      const kept = expired ? "" : `${name}=${value}`;
      if (name === sessionCookie(this.a.config).name) this.cookie = kept;
      else if (name === deviceCookie(this.a.config).name) this.device = kept;
    }
    return res;
  }

  /** Posts the sign-in form; returns the answer (303 on success). */
  async signInForm(fields: Record<string, string>): Promise<Response> {
    return await this.request("/tablet/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Signs in as the user (picked by id) and picks up the CSRF token from the home page. */
  async signIn(user: { id: number }): Promise<void> {
    const res = await this.signInForm({ user_id: String(user.id), pin: TEST_PIN, next: "/tablet" });
    if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
    const home = await this.request("/tablet");
    const match = /name="_csrf" value="([^"]+)"/.exec(await home.text());
    if (!match) throw new Error("no CSRF token on the tablet home page");
    this.csrf = match[1];
  }

  async postJson(path: string, body: unknown): Promise<Response> {
    return await this.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": this.csrf },
      body: JSON.stringify(body),
    });
  }

  /** Sends a handover image (docs/handover.md); `type` is the content type the tablet declares. */
  async uploadHandoverImage(kind: string, bytes: Uint8Array, type = "image/png"): Promise<Response> {
    return await this.request(`/tablet/api/handover-images?kind=${encodeURIComponent(kind)}`, {
      method: "POST",
      headers: { "content-type": type, "x-csrf-token": this.csrf },
      body: bytes as Uint8Array<ArrayBuffer>,
    });
  }

  async uploadPhoto(query: Record<string, string | number>, bytes: Uint8Array): Promise<Response> {
    const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    return await this.request(`/tablet/api/photos?${q}`, {
      method: "POST",
      headers: { "content-type": "image/jpeg", "x-csrf-token": this.csrf },
      body: bytes as Uint8Array<ArrayBuffer>,
    });
  }
}
