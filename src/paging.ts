/** Pages of every list: `limit` and an opaque `cursor` in, `{items, next_cursor}` out (src/db/pagination.ts runs the query). */

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** The page of a list from its validated `limit` and `cursor` (the request validator checked their schemas). */
export function pageRequest(query: { limit?: number; cursor?: string }): PageRequest {
  // `?cursor=` (empty) asks for the first page.
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, cursor: query.cursor || undefined };
}

export function mapPage<A, B>(page: Page<A>, fn: (a: A) => B): Page<B> {
  return { items: page.items.map(fn), next_cursor: page.next_cursor };
}
