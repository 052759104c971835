/**
 * A region of a dashboard page that updates itself (docs/dashboard.md "Live updates"): `<Live topics={[…]}>`
 * marks its children with `data-live` and adds the HqLive island, which swaps the region for a fresh copy of
 * the page's when one of `topics` changes (islands/HqLive.tsx, routes/hq/live.ts).
 */
import { type ComponentChildren, createContext } from "preact";
import { useContext } from "preact/hooks";
import HqLive from "@/islands/HqLive.tsx";
import { island } from "@/render/islands.tsx";
import type { ChangeTopic } from "@/db/queries/changes.ts";

const HqLiveIsland = island("HqLive", HqLive);

type LiveProps = {
  topics: ChangeTopic[];
  children: ComponentChildren;
  /**
   * When the page was made (the service's clock): a keyed row (`liveRow`) made at or after it that a
   * refresh brings is new, and highlighted and announced; an older one that only moved into view (paging,
   * sorting) is not. Without it, rows newer than every row of the page as loaded count.
   */
  since?: Date;
};

/**
 * Set by the HQ shell (components/hq/HqShell.tsx): the topics of the page's regions, gathered while it
 * renders, so the shell adds one island for them all (its own header count's and the page's) after the
 * page: one stream and one refresh per change, not one per region.
 */
export const PageLiveTopics = createContext<Set<ChangeTopic> | null>(null);

export function Live({ topics, children, since }: LiveProps) {
  const gathered = useContext(PageLiveTopics);
  if (gathered) {
    for (const t of topics) gathered.add(t);
    return <LiveRegion topics={topics} since={since}>{children}</LiveRegion>;
  }
  return (
    <>
      <HqLiveIsland topics={topics} />
      <LiveRegion topics={topics} since={since}>{children}</LiveRegion>
    </>
  );
}

/** Another region of a page that already has a `<Live>`: its island refreshes every region of the page. */
export function LiveRegion({ topics, children, since }: LiveProps) {
  return <div data-live={topics.join(" ")} data-live-since={since?.getTime()}>{children}</div>;
}

/**
 * The attributes of a row a live refresh may bring (docs/live-rows.md): its key (`movement:12`), when it was
 * made, and what a screen reader is told when it arrives ("movement #12: Direct, ABC123").
 */
export function liveRow(key: string, at: Date | string, say: string): Record<string, string> {
  return { "data-live-key": key, "data-live-at": String(new Date(at).getTime()), "data-live-say": say };
}

/** The one island of a page whose topics were gathered (PageLiveTopics): rendered after everything else. */
export function GatheredLive({ topics }: { topics: Set<ChangeTopic> }) {
  return <HqLiveIsland topics={[...topics]} />;
}
