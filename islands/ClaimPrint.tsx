/**
 * The claim page's Print button (docs/claim-page.md): opens the browser's
 * print dialog (an island: the CSP allows no inline handler). Whichever way the page is printed (this
 * button, the browser's menu, Ctrl+P), it stamps the time of printing in the depot's zone into the page's
 * margins just before (`beforeprint`), so a page left open since the morning does not print the morning's
 * time.
 */
import { useEffect } from "preact/hooks";
import { cssString, PRINT_STAMP, printStamp } from "../components/hq/print_margins.ts";

export interface ClaimPrintProps {
  /** The depot's time zone and the locale naming it (io/time_zone.ts `zoneNameLocale`). */
  zone: string;
  nameLocale: string;
  /** The button's classes (components/hq/ui.tsx). */
  class: string;
}

export default function ClaimPrint({ zone, nameLocale, class: className }: ClaimPrintProps) {
  useEffect(() => {
    const stamp = () =>
      document.documentElement.style.setProperty(
        PRINT_STAMP,
        cssString(printStamp("Printed", new Date(), zone, nameLocale)),
      );
    addEventListener("beforeprint", stamp);
    return () => removeEventListener("beforeprint", stamp);
  }, [zone, nameLocale]);
  return <button type="button" class={className} onClick={() => print()}>Print</button>;
}
