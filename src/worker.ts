import { loadConfig, ConfigError } from './config';
import { createLogger } from './logger';
import { createKnex } from './db/knex';
import { connectTemporalClient } from './temporal/connection';
import { createJobWorker } from './temporal/worker-factory';
import { jobLauncherFor } from './temporal/job-launcher';
import { startReconciler } from './temporal/reconciler';
import { builtinImplementations } from '../activities/in-process/registry';

/** Production worker process: runs job workflows and their activities, and the pending-job reconciler. */
async function run() {
  const config = loadConfig();
  if (!config.databaseUrl || !config.temporal.address) throw new ConfigError('DATABASE_URL and TEMPORAL_ADDRESS are required');
  const log = createLogger(config.logLevel, 'worker');
  const knex = createKnex(config.databaseUrl);
  const client = await connectTemporalClient(config.temporal.address, config.temporal.namespace);
  const { worker, connection } = await createJobWorker({ config, knex, client, log, inProcess: builtinImplementations });
  const launcher = jobLauncherFor(client, config);
  const reconciler = startReconciler({ knex, launcher, log });
  log.info({ taskQueue: config.temporal.taskQueue }, 'worker running');
  try {
    await worker.run(); // the SDK shuts the worker down on SIGINT/SIGTERM
  } finally {
    reconciler.stop();
    await connection.close();
    await client.connection.close();
    await knex.destroy();
  }
}

run().catch((err) => {
  console.error('worker failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
