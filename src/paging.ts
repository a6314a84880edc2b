import { InvalidInputError } from './errors';

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

/** Parses `limit` and `cursor` query parameters; 400 on anything else than a whole number in range. */
export function pageRequest(query: Record<string, unknown>): PageRequest {
  const rawLimit = query.limit;
  let limit = DEFAULT_PAGE_SIZE;
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (typeof rawLimit !== 'string' || !/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new InvalidInputError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
  }
  const cursor = query.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidInputError('cursor must be a string');
  return { limit, cursor: cursor || undefined };
}

export function mapPage<A, B>(page: Page<A>, fn: (a: A) => B): Page<B> {
  return { items: page.items.map(fn), next_cursor: page.next_cursor };
}
