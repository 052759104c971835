/** Offset paging of the dashboard's lists, shared by the parts and movements searches. */

export interface PageWindow {
  offset: number;
  limit: number;
}

/** The part of a Kysely select query paging needs (the builder's own methods, whatever its row type). */
interface Pageable<R> {
  offset(offset: number): Pageable<R>;
  limit(limit: number): Pageable<R>;
  execute(): Promise<R[]>;
}

/** One page of an ordered query; one row past the page is read to learn whether a next page exists. */
export async function fetchPage<R>(
  query: Pageable<R>,
  page: PageWindow,
): Promise<{ rows: R[]; more: boolean }> {
  const rows = await query.offset(page.offset).limit(page.limit + 1).execute();
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}
