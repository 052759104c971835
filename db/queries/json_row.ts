/**
 * A row as `row_to_json` or `json_agg` hands it over: the values the drivers would give as a Date
 * (timestamps) arrive as their ISO 8601 text, every other column as its own type. For a statement that reads
 * several rows or row sets in one round trip (db/queries/submission_reads.ts), typed from the table's row
 * type: `JsonRow<Pick<PartsMovement, "dropped_off_at">>` is `{ dropped_off_at: string | null }`.
 */
export type JsonRow<R> = { [K in keyof R]: JsonValue<R[K]> };

/** One column's value through JSON (distributes over a union: `Date | null` is `string | null`). */
type JsonValue<V> = V extends Date ? string : V;
