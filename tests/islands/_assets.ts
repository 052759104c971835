/**
 * The asset build the island tests render against: the production islands plus tests/islands/ (test-only
 * islands such as Counter), in a dist folder of its own under test-output/ (git-ignored). The production
 * build (static/dist) never contains a test island; this one is reused across runs while it is current.
 */
import { join } from "node:path";
import { type AssetManifest, ensureAssets, REPO_ROOT } from "@/render/assets.ts";

export const TEST_ISLAND_DIRS = ["islands", "tests/islands"];
export const TEST_DIST_DIR = join(REPO_ROOT, "test-output", "dist-test-islands");

export function ensureTestAssets(): Promise<AssetManifest> {
  return ensureAssets({ distDir: TEST_DIST_DIR, islandDirs: TEST_ISLAND_DIRS, log: () => {} });
}
