import type { LayoutProps } from "@/components/Layout.tsx";

/**
 * The HTML shell of the depot tablet pages (passed to renderPage as `layout`). Unlike the shared Layout
 * it leaves the landmarks to the page: a tablet page renders its own <header> (banner) and <main>.
 */
export function TabletLayout({ title, lang = "en", children }: LayoutProps) {
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        {/* Installable, full screen, with the app's icon (static/tablet.webmanifest). */}
        <meta name="theme-color" content="#1e3a8a" />
        <link rel="manifest" href="/static/tablet.webmanifest" />
        <link rel="icon" href="/static/icons/icon.svg" type="image/svg+xml" />
        <link rel="apple-touch-icon" href="/static/icons/icon-192.png" />
        <title>{title}</title>
      </head>
      <body class="tablet-body">
        <SkipToContent />
        {children}
      </body>
    </html>
  );
}

/** The first stop of the keyboard on a page that renders its own <main id="main">. */
export function SkipToContent() {
  return (
    <a
      href="#main"
      class="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 btn btn-secondary"
    >
      Skip to content
    </a>
  );
}
