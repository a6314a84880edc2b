import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from '../../migrations';

// Return timestamptz as Date (default) and bigint counts as numbers: counts here never exceed 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createKnex(databaseUrl: string, pool: { min?: number; max?: number } = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
  });
}

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest({ migrationSource });
  return applied as string[];
}
