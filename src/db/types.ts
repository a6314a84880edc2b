import type { Knex } from 'knex';
import type pg from 'pg';

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

/** What a write may give a column: its own type, JSON text for a jsonb column, or SQL such as `db.fn.now()`. */
type Writable<Row> = { [K in keyof Row]?: Row[K] | string | null | Knex.Raw };

/** The rows of `name` as `Row`: knex then types what a query answers (`first()`, `returning('*')`). */
export function table<Row extends object>(db: Db, name: string) {
  return db<Knex.CompositeTableType<Row, Writable<Row>, Writable<Row>>>(name);
}

/** The settings of `knex`'s connections, for a connection of its own apart from the pool (a lock, a LISTEN). */
export function ownConnectionConfig(knex: Knex): pg.ClientConfig {
  const connection = (knex.client as { config: { connection: string | pg.ClientConfig } }).config.connection;
  return typeof connection === 'string' ? { connectionString: connection } : connection;
}
