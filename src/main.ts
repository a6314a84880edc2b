import { loadConfig, requireProductionSettings } from './config';
import { createLogger } from './logger';
import { createKnex } from './db/knex';
import { connectTemporalClient } from './temporal/connection';
import { jobLauncherFor } from './temporal/job-launcher';
import { verifierFromConfig } from './auth/verifier';
import { createApp } from './app';
import { builtinImplementations } from '../activities/in-process/registry';
import { onShutdown } from './shutdown';

/** Production API process: reads the environment, connects, serves. */
async function run() {
  const config = loadConfig();
  requireProductionSettings(config);
  const log = createLogger(config.logLevel, 'api');
  const knex = createKnex(config.databaseUrl!);
  const temporal = await connectTemporalClient(config.temporal.address!, config.temporal.namespace);
  const launcher = jobLauncherFor(temporal, config);
  const verify = verifierFromConfig(config.auth, log);
  const { app } = createApp({ config, knex, temporal, launcher, verify, log, inProcessNames: Object.keys(builtinImplementations) });
  const server = app.listen(config.port, () => log.info({ port: config.port }, 'API listening'));
  onShutdown(log, async () => {
    await new Promise((r) => server.close(r));
    await temporal.connection.close();
    await knex.destroy();
  });
}

run().catch((err) => {
  console.error('API failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
