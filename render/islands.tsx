/**
 * Server side of the island layer (modelled on Fresh's islands, which we cannot install).
 *
 * `island(name, Component)` wraps a component from islands/ so that rendering it on the server
 * emits a marker element carrying the island's name and JSON props around its HTML; the browser
 * runtime (render/island_boot.ts) finds the markers and hydrates them. `renderWithIslands` renders a
 * tree and reports which islands it used, so render/page.tsx ships scripts only for those.
 */
import {
  type ComponentChild,
  type ComponentChildren,
  type ComponentType,
  createContext,
  type FunctionComponent,
  h,
} from "preact";
import { useContext } from "preact/hooks";
import { renderToString } from "preact-render-to-string";

/** Island names are the file names in an island folder (`islands/TabletFlow.tsx` → "TabletFlow"). */
export const ISLAND_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** Set by the renderer to learn which islands a page used; absent when rendering bare fragments. */
const UsedIslands = createContext<Set<string> | null>(null);
/** True below an island: a nested island is then plain markup of its parent, hydrated by it. */
const InsideIsland = createContext(false);

/**
 * Makes a server-renderable island from a component in islands/. `name` must equal the file name,
 * which is how the browser bundle finds the component. Props must be JSON-safe: they travel in an
 * attribute and are rebuilt with JSON.parse in the browser.
 */
export function island<P extends object>(name: string, Component: ComponentType<P>): FunctionComponent<P> {
  if (!ISLAND_NAME.test(name)) {
    throw new Error(`island name "${name}" must be the PascalCase file name of a module in islands/`);
  }
  function IslandMarker(props: P): ComponentChild {
    const inner = h(Component, props);
    if (useContext(InsideIsland)) return inner;
    useContext(UsedIslands)?.add(name);
    return (
      <div data-island={name} data-island-props={serializeIslandProps(name, props)}>
        <InsideIsland.Provider value>{inner}</InsideIsland.Provider>
      </div>
    );
  }
  IslandMarker.displayName = `Island(${name})`;
  return IslandMarker;
}

/**
 * JSON for the props attribute. `<` becomes `\u003c`, so the text can hold neither a tag nor a
 * comment opener whatever container it lands in (attribute today, a JSON <script> if that ever
 * changes); JSON.parse turns it back into `<`. Throws on values JSON cannot carry faithfully.
 */
export function serializeIslandProps(name: string, props: object): string {
  if ((props as { children?: unknown }).children !== undefined) {
    throw new TypeError(`${name} props: islands take no JSX children (they cannot travel as JSON)`);
  }
  assertJsonSafe(props, `${name} props`);
  return JSON.stringify(props).replaceAll("<", "\\u003c");
}

/** Renders a tree, returning its HTML and the islands it used, in order of first use. */
export function renderWithIslands(tree: ComponentChildren): { html: string; islands: string[] } {
  const used = new Set<string>();
  const html = renderToString(<UsedIslands.Provider value={used}>{tree}</UsedIslands.Provider>);
  return { html, islands: [...used] };
}

// A Date would arrive as a string and a function as nothing, so the browser would render something
// other than the server did; failing on the server names the bad prop instead.
function assertJsonSafe(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return;
    throw new TypeError(`${path} is ${value}, which JSON cannot carry`);
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJsonSafe(item, `${path}[${i}]`));
    return;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(
        `${path} is a ${proto?.constructor?.name ?? "class instance"}; pass plain JSON data`,
      );
    }
    for (const [key, item] of Object.entries(value)) {
      // Undefined properties are dropped by JSON.stringify and read back as undefined: harmless.
      if (item !== undefined) assertJsonSafe(item, `${path}.${key}`);
    }
    return;
  }
  throw new TypeError(
    `${path} is a ${typeof value}; island props must be JSON (no functions or JSX children)`,
  );
}
