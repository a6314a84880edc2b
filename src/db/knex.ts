import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrationSourceWith } from '../../migrations';
import type { SecretBox } from '../secrets/secret-box';

// Return timestamptz as Date (default) and bigint counts as numbers: counts here never exceed 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * A pool of at most `max` connections (10 by default). `name` is the connections' application_name, so that
 * `pg_stat_activity` (and a Postgres operator) sees which process holds which connection.
 */
export function createKnex(databaseUrl: string, pool: { min?: number; max?: number; name?: string } = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: pool.name ? { connectionString: databaseUrl, application_name: pool.name } : databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    // knex warns of each failed connection with its stack; the error itself reaches the caller, which reports it, so
    // the warning keeps its first line (a missing database was a stack trace before the message that says so).
    log: { warn: (message: unknown) => console.warn(String(message).split('\n')[0]) },
  });
}

/** `secrets`: needed when a migration has stored secrets to seal (SECRET_KEYS); it says so when it is missing. */
export async function migrateLatest(knex: Knex, secrets?: SecretBox): Promise<string[]> {
  // knex types the answer as any; it is [batch number, names of the migrations applied].
  const [, applied] = (await knex.migrate.latest({ migrationSource: migrationSourceWith(secrets) })) as [number, string[]];
  return applied;
}
