import { loadConfig, ConfigError } from './config';
import { createKnex, migrateLatest } from './db/knex';

/** `npm run migrate`: applies pending migrations to DATABASE_URL. */
async function run() {
  const config = loadConfig();
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  const knex = createKnex(config.databaseUrl);
  try {
    const applied = await migrateLatest(knex);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
  } finally {
    await knex.destroy();
  }
}

run().catch((err) => {
  console.error('migration failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
