import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from '../../migrations';

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
  });
}

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({ migrationSource });
  return applied as string[];
}
