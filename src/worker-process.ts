import { loadConfig, ConfigError } from './config';
import { createLogger } from './logger';
import { composeWorker, openResources } from './composition';
import type { Tracing } from './observability/tracing';

/**
 * Production worker process: runs job workflows and their activities, and, while it holds the worker-duties lock, the loops one worker of a deployment runs (src/db/leader-lock.ts); serves
 * its metrics and the Temporal SDK's on WORKER_METRICS_PORT when set. On SIGTERM the SDK stops polling and
 * gives running activities WORKER_SHUTDOWN_GRACE_SECONDS; then the pools close.
 */
export async function runWorker(tracing?: Tracing): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl || !config.temporal.address) throw new ConfigError('DATABASE_URL and TEMPORAL_ADDRESS are required');
  // It signs webhook deliveries with secrets stored sealed under these keys.
  if (!config.secretKeys.length) throw new ConfigError('SECRET_KEYS is required (README, "Secrets at rest")');
  const log = createLogger(config.logLevel, 'worker');
  const resources = await openResources({ config, log, poolName: 'mos-worker', tracing });
  try {
    const worker = await composeWorker({ ...resources, poolName: 'mos-worker' });
    log.info({ taskQueue: config.temporal.taskQueue, metricsPort: config.workerMetrics.port, tracing: Boolean(tracing) }, 'worker running');
    try {
      await worker.run(); // the SDK shuts the worker down on SIGINT/SIGTERM
    } finally {
      await worker.close();
    }
  } finally {
    await resources.close();
    await tracing?.shutdown();
    log.info('worker stopped');
  }
}
