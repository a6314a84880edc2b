import { loadConfig, ConfigError } from '../config';
import { createKnex } from '../db/knex';
import { resealAll, sealedCountsByKey } from '../db/sealed-secrets.repository';
import { createSecretBox } from '../secrets/secret-box';

/**
 * `npm run secrets:reseal`: after a new key was put first in SECRET_KEYS, moves every stored secret under it, then
 * prints how many each key holds. A key that holds none may be removed from SECRET_KEYS. Prints counts, never secrets.
 */
async function run() {
  const config = loadConfig();
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  if (!config.secretKeys.length) throw new ConfigError('SECRET_KEYS is required');
  const box = createSecretBox(config.secretKeys);
  const knex = createKnex(config.databaseUrl, { max: 2, name: 'mos-reseal' });
  try {
    const resealed = await resealAll(knex, box);
    console.log(`resealed ${resealed} secret(s) under key "${box.currentKeyId}"`);
    const counts = await sealedCountsByKey(knex);
    for (const { id } of config.secretKeys) console.log(`  key "${id}": ${counts[id] ?? 0} secret(s)`);
    const unknown = Object.keys(counts).filter((id) => !config.secretKeys.some((k) => k.id === id));
    if (unknown.length) throw new Error(`secrets sealed under keys SECRET_KEYS does not hold: ${unknown.join(', ')}`);
  } finally {
    await knex.destroy();
  }
}

run().catch((err) => {
  console.error('reseal failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
