import { loadConfig, ConfigError } from './config';
import { createLogger } from './logger';
import { createKnex } from './db/knex';
import { poolStats } from './db/pool-stats';
import { connectTemporalClient } from './temporal/connection';
import { clientMetricsInterceptor } from './temporal/client-metrics';
import { installTemporalRuntime } from './temporal/runtime';
import { createJobWorker } from './temporal/worker-factory';
import { jobGatewayFor } from './temporal/job-gateway';
import { startReconciler } from './temporal/reconciler';
import { slotReleaserFor } from './temporal/slot-releaser-factory';
import { startScheduleReconciler } from './temporal/schedule-reconciler';
import { createScheduleGateway } from './temporal/schedule-gateway';
import { webhookDispatcherFor } from './temporal/webhook-dispatcher';
import { builtinImplementations } from '../activities/in-process/registry';
import { ServiceMetrics } from './observability/metrics';
import { serveWorkerMetrics } from './observability/worker-metrics-server';
import type { Tracing } from './observability/tracing';

/**
 * Production worker process: runs job workflows and their activities, and the pending-job reconciler; serves
 * its metrics and the Temporal SDK's on WORKER_METRICS_PORT when set. On SIGTERM the SDK stops polling and
 * gives running activities WORKER_SHUTDOWN_GRACE_SECONDS; then the pools close.
 */
export async function runWorker(tracing?: Tracing): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl || !config.temporal.address) throw new ConfigError('DATABASE_URL and TEMPORAL_ADDRESS are required');
  // It signs webhook deliveries with secrets stored sealed under these keys.
  if (!config.secretKeys.length) throw new ConfigError('SECRET_KEYS is required (README, "Secrets at rest")');
  const log = createLogger(config.logLevel, 'worker');
  const { port: metricsPort, sdkPort } = config.workerMetrics;
  // Before any connection: the SDK reads its telemetry options once, when its Runtime is installed.
  installTemporalRuntime({ prometheusAddress: metricsPort && sdkPort ? `127.0.0.1:${sdkPort}` : undefined });
  const knex = createKnex(config.databaseUrl, { max: config.databasePoolMax, name: 'mos-worker' });
  const metrics = new ServiceMetrics({ pool: poolStats(knex) });
  const client = await connectTemporalClient(config.temporal.address, config.temporal.namespace, 30000, [
    clientMetricsInterceptor(metrics),
    ...(tracing?.clientInterceptors ?? []),
  ]);
  const metricsServer = metricsPort
    ? await serveWorkerMetrics({ port: metricsPort, metrics, sdkUrl: sdkPort ? `http://127.0.0.1:${sdkPort}/metrics` : undefined, log })
    : undefined;
  const { worker, connection } = await createJobWorker({ config, knex, client, log, inProcess: builtinImplementations, metrics, tracing });
  const gateway = jobGatewayFor(client, config, metrics);
  // Tests run several workers on their own task queues over one database: one reconciler must not take another's rows.
  const reconciler = config.jobs.reconcilerEnabled ? startReconciler({ knex, gateway, log, metrics }) : undefined;
  // Held jobs are pending rows waiting for a slot: whoever starts the orphaned pending rows starts these too.
  const releaser = config.jobs.reconcilerEnabled ? slotReleaserFor({ knex, gateway, log, metrics, config }) : undefined;
  const dispatcher = webhookDispatcherFor({ knex, client, config, log });
  const { temporal: t, schedules: sc } = config;
  const scheduleReconciler =
    config.jobs.reconcilerEnabled && sc.reconcileSeconds > 0
      ? startScheduleReconciler({
          knex,
          log,
          everySeconds: sc.reconcileSeconds,
          gateway: createScheduleGateway({ client, taskQueue: t.taskQueue, namespace: t.namespace, uiUrl: t.uiUrl }),
        })
      : undefined;
  log.info({ taskQueue: config.temporal.taskQueue, metricsPort, tracing: Boolean(tracing) }, 'worker running');
  if (!config.jobs.tokenKeys.length)
    log.warn('JOB_TOKEN_KEYS is not set: dispatches carry no job token (docs/authorization.md, "Job tokens")');
  try {
    await worker.run(); // the SDK shuts the worker down on SIGINT/SIGTERM
  } finally {
    await reconciler?.stop();
    await releaser?.stop();
    await dispatcher?.stop();
    await scheduleReconciler?.stop();
    await connection.close();
    await client.connection.close();
    await metricsServer?.close();
    await knex.destroy();
    await tracing?.shutdown();
    log.info('worker stopped');
  }
}
