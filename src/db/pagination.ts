import type { Knex } from 'knex';
import { InvalidInputError } from '../errors';

import type { PageRequest, Page } from '../paging';

/** A cursor is what next_cursor gave out: base64url of [created_at as toISOString(), id]. */
const MAX_CURSOR_LENGTH = 600;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// Room for the longest key a page uses: a version's `model_id@version` (128 + 1 + 128).
const CURSOR_ID = /^[\x21-\x7e]{1,300}$/;

/**
 * Validates a forged or damaged cursor as strictly as one we issue, so Postgres never sees a value it rejects:
 * the instant must be the exact toISOString() form of a real date in years 0001–9999 (JavaScript accepts
 * dates such as "+275760-09-13" that timestamptz does not), the id visible ASCII (no NUL).
 */
export function decodeCursor(cursor: string): [string, string] {
  if (cursor.length <= MAX_CURSOR_LENGTH && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    try {
      const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (
        Array.isArray(value) &&
        value.length === 2 &&
        typeof value[0] === 'string' &&
        typeof value[1] === 'string' &&
        ISO_INSTANT.test(value[0]) &&
        !value[0].startsWith('0000') &&
        new Date(value[0]).toISOString() === value[0] &&
        CURSOR_ID.test(value[1])
      ) {
        return value as [string, string];
      }
    } catch {
      // fall through: not base64url JSON, or not a real date
    }
  }
  throw new InvalidInputError('cursor is not valid: pass the next_cursor of a previous page unchanged');
}

/** The cursor of a page that ends at the row of instant `at` and key `id`. */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

/**
 * Keyset pagination, newest first, on (created_at, tiebreak column): stable under concurrent inserts.
 * `table` qualifies the columns when the query joins. `order` pages by another instant column instead
 * (`updated_at`: recently changed first, where a row changed between pages may move ahead of the cursor).
 */
export async function paginate<Row extends { created_at: Date }>(
  query: Knex.QueryBuilder,
  page: PageRequest,
  tiebreak: string,
  table: string,
  order: 'created_at' | 'updated_at' = 'created_at',
): Promise<Page<Row>> {
  const created = `${table}.${order}`;
  const key = `${table}.${tiebreak}`;
  if (page.cursor) {
    const [at, id] = decodeCursor(page.cursor);
    // Compared as text, so a forged id cannot make Postgres reject the cast; lowercase uuid text sorts like the uuid.
    query.whereRaw(`(??, ??::text) < (?::timestamptz, ?)`, [created, key, at, id]);
  }
  // The caller's query selects Row: its statement is typed where it is written, not here.
  const rows = (await query
    .orderBy([
      { column: created, order: 'desc' },
      { column: key, order: 'desc' },
    ])
    .limit(page.limit + 1)) as Row[];
  const items = rows.slice(0, page.limit);
  // Every paginated table has created_at; the tiebreak column is the key named by the caller.
  const last = items[items.length - 1] as Row & Record<string, unknown>;
  const next_cursor = rows.length > page.limit ? encodeCursor(last[order] as Date, String(last[tiebreak])) : null;
  return { items, next_cursor };
}

/**
 * Keyset pagination in ascending order of one unique text column, for lists whose natural order is a key
 * rather than time (effective assignments: one per key).
 */
export async function paginateByKey<Row extends object>(query: Knex.QueryBuilder, page: PageRequest, column: string): Promise<Page<Row>> {
  if (page.cursor) query.where(column, '>', decodeKeyCursor(page.cursor));
  const rows = (await query.orderBy(column).limit(page.limit + 1)) as Row[];
  const items = rows.slice(0, page.limit);
  const next_cursor =
    rows.length > page.limit
      ? Buffer.from(JSON.stringify({ after: String((items[items.length - 1] as Record<string, unknown>)[column]) })).toString('base64url')
      : null;
  return { items, next_cursor };
}

function decodeKeyCursor(cursor: string): string {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const after = (value as { after?: unknown } | null)?.after;
    if (typeof after === 'string') return after;
  } catch {
    // fall through
  }
  throw new InvalidInputError('cursor is not valid');
}
