import type { ComponentChildren } from "preact";

export interface LayoutProps {
  title: string;
  lang?: string;
  /** The root element's `style`: CSS custom properties a printed page's margins read (components/hq/print_margins.ts). */
  rootStyle?: string;
  children?: ComponentChildren;
}

/**
 * The HTML shell every page shares. render/page.tsx adds the stylesheet and any island
 * scripts just before </head>, so a layout only has to render a <head>.
 */
export function Layout({ title, lang = "en", rootStyle, children }: LayoutProps) {
  return (
    <html lang={lang} style={rootStyle}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
      </head>
      <body>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
