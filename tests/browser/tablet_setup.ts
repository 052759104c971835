/**
 * The tablet's browser tests share this set-up: the app over a fresh PGlite database with the demo data
 * imported, served on a local port, and the steps a driver takes on the real pages (sign in with the PIN
 * pad, choose a job and a rego, photograph a part).
 */
import type { Page } from "playwright-core";
import { importData } from "@/lib/import.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { buildTestApp, type TestApp } from "@/tests/helpers/app.ts";
import { freshDb } from "@/tests/helpers/db.ts";
import { fixturePath } from "@/tests/helpers/photos.ts";
import { serveApp, type ServedApp } from "./browser.ts";

export const PHOTO = fixturePath("photo.jpg");

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
  const d: Demo = {
    a,
    served,
    close: async () => {
      await d.served.close();
      await t.close();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    },
  };
  return d;
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
