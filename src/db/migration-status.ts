import type { Knex } from 'knex';
import { migrationSource } from '../../migrations';

/**
 * The migrations this build knows that the database has not applied. Reads knex's bookkeeping table directly:
 * `knex.migrate.list()` would create that table, and a readiness probe must not write.
 */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const known = await migrationSource.getMigrations([]);
  if (!(await knex.schema.hasTable('knex_migrations'))) return known;
  const applied = new Set((await knex('knex_migrations').select('name')).map((row: { name: string }) => row.name));
  return known.filter((name) => !applied.has(name));
}
