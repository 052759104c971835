/**
 * Renders a full HTML document for a page: the layout around it, the stylesheet, and, only when
 * the page used islands, one external boot module plus modulepreload hints for the islands it
 * will import. No inline script is emitted, so a CSP of `script-src 'self'` suffices.
 */
import type { ComponentChildren, ComponentType } from "preact";
import { renderToString } from "preact-render-to-string";
import { Layout, type LayoutProps } from "@/components/Layout.tsx";
import { type AssetManifest, assetUrl, getAssets, islandScripts } from "@/render/assets.ts";
import { renderWithIslands } from "@/render/islands.tsx";

export interface RenderPageOptions {
  title: string;
  lang?: string;
  /** The root element's `style` (LayoutProps). */
  rootStyle?: string;
  /** Another shell than components/Layout.tsx; it must render a <head>. */
  layout?: ComponentType<LayoutProps>;
  /** The build to link against; defaults to the one ensureAssets() made for static/dist. */
  assets?: AssetManifest;
}

/** Returns the document as a string, for `c.html(...)`. */
export async function renderPage(page: ComponentChildren, options: RenderPageOptions): Promise<string> {
  const assets = options.assets ?? await getAssets();
  const Shell = options.layout ?? Layout;
  const { html, islands } = renderWithIslands(
    <Shell title={options.title} lang={options.lang} rootStyle={options.rootStyle}>{page}</Shell>,
  );
  const scripts = islandScripts(assets, islands);
  // Rendered after the body because only then is it known which islands the page used.
  const headTags = renderToString(
    <>
      <link rel="stylesheet" href={assetUrl(assets, "styles.css")} />
      {scripts?.preload.map((href) => <link key={href} rel="modulepreload" href={href} />)}
      {scripts && <script type="module" src={scripts.boot}></script>}
    </>,
  );
  // The first </head> is the real one: nothing before it comes from page data unescaped.
  const at = html.indexOf("</head>");
  if (at === -1) throw new Error("the page layout rendered no <head> to put the stylesheet in");
  return `<!DOCTYPE html>${html.slice(0, at)}${headTags}${html.slice(at)}`;
}
