import type { Knex } from 'knex';

/** A connection or a transaction: repositories work inside either. */
export type Db = Knex | Knex.Transaction;

export function iso(d: Date): string;
export function iso(d: Date | null | undefined): string | null;
export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** Postgres unique_violation: lets callers turn a race into a clean 409/422. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (!constraint || e.constraint === constraint);
}
