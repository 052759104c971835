import type { LayoutProps } from "@/components/Layout.tsx";
import { SkipToContent } from "@/components/TabletLayout.tsx";

/**
 * The HTML shell of a repair shop's page (routes/shop/): not indexed, and not installable as the depot's
 * tablet app. The page renders its own
 * <header> and <main>.
 */
export function ShopLayout({ title, lang = "en", children }: LayoutProps) {
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{title}</title>
      </head>
      <body class="tablet-body">
        <SkipToContent />
        {children}
      </body>
    </html>
  );
}
