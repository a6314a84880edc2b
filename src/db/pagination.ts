import type { Knex } from 'knex';
import { InvalidInputError } from '../errors';

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

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string') && !Number.isNaN(Date.parse(value[0]))) {
      return value as [string, string];
    }
  } catch {
    // fall through
  }
  throw new InvalidInputError('cursor is not valid');
}

/**
 * Keyset pagination, newest first, on (created_at, tiebreak column): stable under concurrent inserts.
 * `table` qualifies the columns when the query joins.
 */
export async function paginate<Row extends { created_at: Date }>(
  query: Knex.QueryBuilder,
  page: PageRequest,
  tiebreak: string,
  table: string,
): Promise<Page<Row>> {
  const created = `${table}.created_at`;
  const key = `${table}.${tiebreak}`;
  if (page.cursor) {
    const [at, id] = decodeCursor(page.cursor);
    // Compared as text, so a forged id cannot make Postgres reject the cast; lowercase uuid text sorts like the uuid.
    query.whereRaw(`(??, ??::text) < (?::timestamptz, ?)`, [created, key, at, id]);
  }
  const rows: Row[] = await query.orderBy([{ column: created, order: 'desc' }, { column: key, order: 'desc' }]).limit(page.limit + 1);
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1] as any;
  const next_cursor = rows.length > page.limit
    ? Buffer.from(JSON.stringify([last.created_at.toISOString(), String(last[tiebreak])])).toString('base64url')
    : null;
  return { items, next_cursor };
}

export function mapPage<A, B>(page: Page<A>, fn: (a: A) => B): Page<B> {
  return { items: page.items.map(fn), next_cursor: page.next_cursor };
}

/**
 * Keyset pagination in ascending order of one unique text column, for lists whose natural order is a key
 * rather than time (effective assignments: one per key).
 */
export async function paginateByKey<Row extends object>(query: Knex.QueryBuilder, page: PageRequest, column: string): Promise<Page<Row>> {
  if (page.cursor) query.where(column, '>', decodeKeyCursor(page.cursor));
  const rows: Row[] = await query.orderBy(column).limit(page.limit + 1);
  const items = rows.slice(0, page.limit);
  const next_cursor = rows.length > page.limit ? Buffer.from(JSON.stringify({ after: String((items[items.length - 1] as Record<string, unknown>)[column]) })).toString('base64url') : null;
  return { items, next_cursor };
}

function decodeKeyCursor(cursor: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value?.after === 'string') return value.after;
  } catch {
    // fall through
  }
  throw new InvalidInputError('cursor is not valid');
}
