/**
 * A region of a dashboard page that updates itself (docs/dashboard.md "Live updates"): `<Live topics={[…]}>`
 * marks its children with `data-live` and adds the HqLive island, which swaps the region for a fresh copy of
 * the page's when one of `topics` changes (islands/HqLive.tsx, routes/hq/live.ts).
 */
import type { ComponentChildren } from "preact";
import HqLive from "@/islands/HqLive.tsx";
import { island } from "@/render/islands.tsx";
import type { ChangeTopic } from "@/db/queries/changes.ts";

const HqLiveIsland = island("HqLive", HqLive);

type LiveProps = { topics: ChangeTopic[]; children: ComponentChildren };

export function Live({ topics, children }: LiveProps) {
  return (
    <>
      <HqLiveIsland topics={topics} />
      <LiveRegion topics={topics}>{children}</LiveRegion>
    </>
  );
}

/** Another region of a page that already has a `<Live>`: its island refreshes every region of the page. */
export function LiveRegion({ topics, children }: LiveProps) {
  return <div data-live={topics.join(" ")}>{children}</div>;
}
