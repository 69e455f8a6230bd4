// What every listing command (`accounts ls`, `keys ls`, `models ls`, `jobs ls`, `files ls`,
// `balance history`) prints with --json: one shape, the HTTP API's list envelope, so a script
// reads `.data` whatever it lists and `.has_more` tells it whether the list is complete.
// A list that pages with --cursor adds the cursor of its next page.

export interface ListOutput<Item> {
  readonly object: 'list';
  readonly data: Item[];
  /** More rows exist beyond `data` (beyond --limit, or a further --cursor page); false for a list printed whole. */
  readonly has_more: boolean;
  /** Lists that page: pass it as --cursor for the next page; null on the last page. */
  readonly next_cursor?: string | number | null;
}

/** A list printed whole (nothing beyond it): has_more is false. */
export function wholeList<Item>(data: Item[]): ListOutput<Item> {
  return { object: 'list', data, has_more: false };
}

/** At most `limit` rows of `rows`, which holds up to limit + 1 (the extra one only says that there are more). */
export function limitedList<Item>(rows: Item[], limit: number): ListOutput<Item> {
  return { object: 'list', data: rows.slice(0, limit), has_more: rows.length > limit };
}

/** One page of a list paged by cursor. */
export function pagedList<Item>(data: Item[], nextCursor: string | number | null): ListOutput<Item> {
  return { object: 'list', data, has_more: nextCursor !== null, next_cursor: nextCursor };
}
