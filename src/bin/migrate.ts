import { loadConfig, ConfigError } from '../config';
import { createKnex, migrateLatest } from '../db/knex';
import { connectTemporalClient, endpointOf } from '../temporal/connection';
import { ensureSearchAttributes } from '../temporal/search-attributes';
import { createSecretBox } from '../secrets/secret-box';

/**
 * `npm run migrate`: applies pending migrations to DATABASE_URL and, when TEMPORAL_ADDRESS is set, registers
 * the job search attributes in the namespace (the worker does the same at start).
 */
async function run() {
  const config = loadConfig();
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  const knex = createKnex(config.databaseUrl, { max: 2, name: 'mos-migrate' });
  try {
    // Without SECRET_KEYS the migrations that seal stored secrets stop and name it, if there are any to seal.
    const applied = await migrateLatest(knex, config.secretKeys.length ? createSecretBox(config.secretKeys) : undefined);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
  } finally {
    await knex.destroy();
  }
  if (config.temporal.address) {
    const client = await connectTemporalClient(endpointOf(config.temporal), config.temporal.namespace);
    try {
      const { registered } = await ensureSearchAttributes(client.connection, config.temporal.namespace, {
        register: config.temporal.registerSearchAttributes,
        cloud: config.temporal.cloud,
      });
      console.log(registered.length ? `registered search attributes: ${registered.join(', ')}` : 'search attributes already registered');
    } finally {
      await client.connection.close();
    }
  }
}

run().catch((err) => {
  console.error('migration failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
