/**
 * The depot tablet's browser-test setup, shared by the flow tests and the field tests: the demo app on a
 * free port, a page that collects script errors and measures its JavaScript, sign-in, the job and search,
 * photographing a part, the receiver's signature (mouse or touch), the review and receipt, the network
 * cut and restored, and screenshots of both orientations with the 48 px target check.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "@/testkit/browser.ts";
import { importData } from "@/lib/import.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { freshDb } from "@/testkit/db.ts";
import { fixturePath } from "@/testkit/photos.ts";
import { screenshot, serveApp, type ServedApp } from "@/testkit/browser.ts";

export const LANDSCAPE = { width: 1280, height: 800 };
const PORTRAIT = { width: 800, height: 1280 };
export const PHOTO = fixturePath("photo.jpg");
export const PNG = fixturePath("photo.png");

export interface Demo {
  a: TestApp;
  served: ServedApp;
  close(): Promise<void>;
}

export async function demo(): Promise<Demo> {
  const t = await freshDb("pglite");
  const a = await buildTestApp(t);
  await importData(a.db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), a.clock);
  const served = serveApp(a.app);
  return {
    a,
    served,
    close: async () => {
      await served.close();
      await t.close();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Both orientations of the current screen, then back to landscape. The viewport grows to the page's
 * height first, so bars stuck to the bottom of the screen are drawn where they belong, not mid-page.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  assert.deepEqual(await smallTargets(page), [], `${name}: touch targets under 48 px`);
  for (const [size, orientation] of [[LANDSCAPE, "landscape"], [PORTRAIT, "portrait"]] as const) {
    await page.setViewportSize(size);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    if (height > size.height) await page.setViewportSize({ width: size.width, height });
    await screenshot(page, `tablet_${name}_${orientation}`);
  }
  await page.setViewportSize(LANDSCAPE);
}

/**
 * Controls smaller than 48×48 CSS px on screen. A checkbox, radio or file input counts by its <label>
 * (the whole label is the target); links inside running text are exempt (WCAG 2.5.8 "inline").
 */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const small: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("a, button, input, select, textarea")) {
      if (el.closest("p, dd, li > span") && el.tagName === "A") continue;
      if (el instanceof HTMLInputElement && el.type === "hidden") continue;
      const target = el instanceof HTMLInputElement && ["checkbox", "radio", "file"].includes(el.type)
        ? el.closest("label") ?? el
        : el;
      const box = target.getBoundingClientRect();
      const style = getComputedStyle(target);
      if (box.width === 0 || box.height === 0 || style.visibility === "hidden") continue;
      // The skip link is off-screen until focused.
      if (target.classList.contains("sr-only")) continue;
      if (box.width < 48 || box.height < 48) {
        small.push(
          `${target.tagName} "${target.textContent?.trim().slice(0, 30)}" ${box.width}x${box.height}`,
        );
      }
    }
    return small;
  });
}

async function gzipSize(bytes: Uint8Array<ArrayBuffer>): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** A page that fails the test on script errors and measures the JavaScript it loads. */
export async function openPage(browser: Browser) {
  const context = await browser.newContext({ viewport: LANDSCAPE, hasTouch: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
  });
  const scripts = new Map<string, Promise<number>>();
  // One document's scripts: a script the page before it fetched late (after the last `jsSince`, under a
  // loaded machine) is not the next page's.
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) scripts.clear();
  });
  page.on("response", (r) => {
    if (r.request().resourceType() === "script" && !scripts.has(r.url())) {
      // A body the page navigated away from cannot be read: NaN, so a page measured with one fails its check.
      scripts.set(r.url(), r.body().then((b) => gzipSize(new Uint8Array(b)), () => NaN));
    }
  });
  return {
    page,
    errors,
    /** Gzipped bytes of the scripts loaded since the last call (one page's JavaScript). */
    async jsSince(): Promise<number> {
      const sizes = await Promise.all(scripts.values());
      scripts.clear();
      return sizes.reduce((x, y) => x + y, 0);
    },
    close: () => context.close(),
  };
}

/**
 * One test step's world: a fresh demo app and whatever `open` makes on it (a page, a context); both are
 * closed after `fn`, whether it passed or failed.
 */
export async function onDemo<P extends { close(): Promise<void> }>(
  open: () => Promise<P>,
  fn: (d: Demo, opened: P) => Promise<void>,
): Promise<void> {
  const d = await demo();
  const opened = await open();
  try {
    await fn(d, opened);
  } finally {
    await opened.close();
    await d.close();
  }
}

export const hydrated = (page: Page, island: string) =>
  page.locator(`[data-island="${island}"][data-hydrated]`).first().waitFor({
    state: "attached",
    timeout: 15_000,
  });

/** Signs in through the name list and PIN pad; `onStep` sees each screen (screenshots). */
export async function signIn(
  page: Page,
  baseUrl: string,
  name: string,
  pin: string,
  onStep?: (step: string) => Promise<void>,
) {
  await page.goto(`${baseUrl}/tablet`);
  await hydrated(page, "TabletSignIn");
  await onStep?.("01_sign_in_list");
  await page.getByRole("button", { name }).click();
  const pad = page.getByRole("group", { name: "PIN keypad" });
  for (const digit of pin) await pad.getByRole("button", { name: digit, exact: true }).click();
  await onStep?.("02_pin_pad");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/tablet(\?|$)/);
}

export async function chooseJob(page: Page, title: string, rego: string) {
  await page.getByRole("link", { name: new RegExp(title) }).click();
  await hydrated(page, "TabletFlow");
  await page.getByLabel("Vehicle rego").fill(rego);
  await page.getByRole("button", { name: "Find parts" }).click();
}

/** Selects a part and photographs it; waits until its photo is stored unless `wait` is false. */
export async function photograph(page: Page, partNo: string, file = PHOTO, wait = true) {
  const card = page.getByTestId(`part-${partNo}`);
  await card.getByRole("checkbox").check();
  await card.getByLabel(`Take photo of ${partNo}`).setInputFiles(file);
  if (wait) await card.getByTestId("photo-done").waitFor({ timeout: 15_000 });
}

/** The receiver's signature pad, once it can be drawn on. */
export async function signaturePad(page: Page) {
  const pad = page.getByLabel("Signature", { exact: true });
  await pad.and(page.locator("[data-ready]")).waitFor({ timeout: 15_000 });
  return pad;
}

/**
 * Draws a signature on the handover's pad: with the mouse, or with a finger (touch events sent through
 * the DevTools protocol, as a touch screen sends them).
 */
export async function drawSignature(page: Page, by: "mouse" | "touch" = "mouse"): Promise<void> {
  const pad = await signaturePad(page);
  // In the middle of the screen, clear of the sticky header and action bar (a driver scrolls there too).
  await pad.evaluate((el) => el.scrollIntoView({ block: "center" }));
  const box = (await pad.boundingBox())!;
  const points = [[0.1, 0.6], [0.2, 0.3], [0.3, 0.7], [0.4, 0.35], [0.5, 0.65], [0.6, 0.3], [0.7, 0.6]]
    .map(([x, y]) => ({ x: box.x + box.width * x, y: box.y + box.height * y }));
  if (by === "mouse") {
    await page.mouse.move(points[0].x, points[0].y);
    await page.mouse.down();
    for (const p of points.slice(1)) await page.mouse.move(p.x, p.y, { steps: 5 });
    await page.mouse.up();
    return;
  }
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [points[0]] });
    for (const [i, p] of points.slice(1).entries()) {
      // Steps between the points, as a finger moves; each move is its own event.
      const from = points[i];
      for (let k = 1; k <= 5; k++) {
        const at = { x: from.x + (p.x - from.x) * k / 5, y: from.y + (p.y - from.y) * k / 5 };
        await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [at] });
      }
    }
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  } finally {
    await cdp.detach();
  }
}

/** The receiver types their name and signs (the review is open). */
export async function sign(
  page: Page,
  name = "Pat Receiver",
  by: "mouse" | "touch" = "mouse",
): Promise<void> {
  await page.getByLabel("Receiver's name").fill(name);
  await drawSignature(page, by);
}

/**
 * Reviews, has the receiver sign (`receiver`; null: the job asks for no handover, and the review shows
 * none), confirms and waits for the receipt; returns the movement id.
 */
export async function confirmAndWaitForReceipt(
  page: Page,
  button: string,
  receiver: string | null = "Pat Receiver",
) {
  await page.getByRole("button", { name: /^Review/ }).click();
  await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
  if (receiver === null) assert.equal(await page.getByTestId("handover").count(), 0, "no handover asked");
  else await sign(page, receiver);
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL(/\/tablet\/movements\/\d+/);
  return Number(await page.getByTestId("movement-id").textContent().then((t) => t!.replace("#", "")));
}

export async function thumbnailsLoaded(page: Page): Promise<number> {
  const images = page.locator('img[src^="/photos/"]');
  await images.first().waitFor();
  // Every receipt thumbnail came from /photos/:id/thumb and decoded.
  return await images.evaluateAll((imgs) =>
    Promise.all(
      (imgs as HTMLImageElement[]).map((img) => img.decode().then(() => img.naturalWidth > 0, () => false)),
    ).then((ok) => ok.filter(Boolean).length)
  );
}

/** Waits until the service worker controls the page and has kept the job pages for offline use. */
export async function offlineReady(page: Page): Promise<void> {
  for (let tries = 0;; tries++) {
    const ready = await page.evaluate(async () =>
      navigator.serviceWorker.controller !== null &&
      await (await caches.open("pm-tablet-pages")).match("/tablet/deliver") !== undefined
    );
    if (ready) return;
    if (tries > 80) throw new Error("the service worker did not take over and keep the job pages");
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** No network: the browser offline and the server stopped (a dead spot in the yard). */
export async function offline(d: Demo, context: BrowserContext): Promise<void> {
  await context.setOffline(true);
  await d.served.close();
}

/** The network back: the same app served again on the same port, the browser online. */
export async function online(d: Demo, context: BrowserContext): Promise<void> {
  d.served = serveApp(d.a.app, Number(new URL(d.served.baseUrl).port));
  await context.setOffline(false);
}
