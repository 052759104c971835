/**
 * The one handler of the dashboard's keyset-paged lists (parts, movements): parse the filters and the page
 * asked for (a refused value is a 400 page before any row is read), load the page, and render it with the
 * filters as typed, the "Previous" and "Next" links and the order.
 */
import type { ComponentChildren } from "preact";
import type { HqSection } from "@/components/hq/HqShell.tsx";
import { type HqContext, hqPage, refusedQueryPage } from "@/components/hq/page.tsx";
import type { Cursor, KeysetWindow } from "@/db/queries/paging.ts";
import type { ListSort } from "@/db/queries/sorting.ts";
import { type ListQuery, pageLinks } from "@/lib/dashboard/lists.ts";

/** What a list page shows beside its rows. */
export interface ListPageExtras<C extends string> {
  /** The filters as typed, for the form and the paging and export links. */
  query: Record<string, string>;
  /** The "Previous" and "Next" links (keyset cursors). */
  links: { prev?: string; next?: string };
  sort: ListSort<C>;
}

export interface ListPageSpec<F, C extends string, D extends { prev?: Cursor; next?: Cursor }> {
  /** The list's own path, where the paging links and a refusal's way back lead. */
  path: string;
  title: string;
  section: HqSection;
  queryOf: (raw: Record<string, string>) => ListQuery<F, C>;
  pageOf: (raw: Record<string, string>, sort: ListSort<C>) => KeysetWindow;
  load: (filters: F, paging: KeysetWindow, sort: ListSort<C>) => Promise<D>;
  render: (data: D & ListPageExtras<C>) => ComponentChildren;
}

export function listPage<F, C extends string, D extends { prev?: Cursor; next?: Cursor }>(
  spec: ListPageSpec<F, C, D>,
): (c: HqContext) => Promise<Response> {
  return async (c) => {
    const raw = c.req.query();
    let list, paging;
    try {
      list = spec.queryOf(raw);
      paging = spec.pageOf(raw, list.sort);
    } catch (error) {
      return refusedQueryPage(c, error, spec.path);
    }
    const { query, filters, sort } = list;
    const data = await spec.load(filters, paging, sort);
    const links = pageLinks(spec.path, query, sort, data);
    return hqPage(
      c,
      { title: spec.title, section: spec.section },
      spec.render({ ...data, query, sort, links }),
    );
  };
}
