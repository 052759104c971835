/**
 * Browser-side island runtime. render/assets/js.ts bundles it into `boot-<hash>.js` together with a
 * generated table of lazy imports, one per island file, so a page downloads only the islands
 * whose markers it contains. This module runs in the browser only: it must not import server code.
 *
 * Marker contract (written by render/islands.tsx):
 *   <div data-island="Name" data-island-props="{json}">…server-rendered island…</div>
 * After hydrating, the runtime sets `data-hydrated` on the marker; browser tests wait for it.
 */
import { type ComponentType, h, hydrate } from "preact";

// deno-lint-ignore no-explicit-any
export type IslandModule = { default: ComponentType<any> };
export type IslandLoaders = Record<string, () => Promise<IslandModule>>;

/** Hydrates every island marker under `root`; one failing island does not stop the others. */
export async function hydrateIslands(loaders: IslandLoaders, root: ParentNode = document): Promise<void> {
  const markers = Array.from(root.querySelectorAll<HTMLElement>("[data-island]:not([data-hydrated])"));
  await Promise.all(markers.map(async (marker) => {
    const name = marker.dataset.island ?? "";
    try {
      // Own-property check: a marker named "constructor" must not reach Object.prototype.
      if (!Object.prototype.hasOwnProperty.call(loaders, name)) {
        throw new Error("no such island in this build");
      }
      const { default: Component } = await loaders[name]();
      const props = JSON.parse(marker.dataset.islandProps ?? "{}");
      hydrate(h(Component, props), marker);
      marker.setAttribute("data-hydrated", "");
    } catch (error) {
      marker.setAttribute("data-island-error", "");
      console.error(`island ${name} failed to hydrate`, error);
    }
  }));
}
