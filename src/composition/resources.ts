import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Client, WorkflowClientInterceptor } from '@temporalio/client';
import { ConfigError, type Config } from '../config';
import { createKnex } from '../db/knex';
import { poolStats } from '../db/pool-stats';
import { ServiceMetrics } from '../observability/metrics';
import type { Tracing } from '../observability/tracing';
import { connectTemporalClient, endpointOf } from '../temporal/connection';
import { clientMetricsInterceptor } from '../temporal/client-metrics';

/** What a composition is built on: opened by the process (or the harness), closed by it after the parts. */
export interface Resources {
  config: Config;
  knex: Knex;
  /** The Temporal client, with the interceptors of `temporalClientInterceptors`. */
  temporal: Client;
  log: Logger;
  /** This process's metrics (the pool of `knex`; in one process running both, the API's and the worker's). */
  metrics: ServiceMetrics;
  /** Spans of the client, the app and the worker, started by the entry point before the modules it instruments. */
  tracing?: Tracing;
}

/** The interceptors of every Temporal client of the service: its calls' metrics, then the trace context. */
export function temporalClientInterceptors(metrics: ServiceMetrics, tracing?: Tracing): WorkflowClientInterceptor[] {
  return [clientMetricsInterceptor(metrics), ...(tracing?.clientInterceptors ?? [])];
}

/**
 * A process's resources from its config: the Postgres pool (DATABASE_POOL_MAX, named `poolName` in pg_stat_activity),
 * the metrics over it, and the Temporal client (waiting up to 30 s for the server). `close` closes them, the pool last.
 */
export async function openResources(options: {
  config: Config;
  log: Logger;
  poolName: string;
  tracing?: Tracing;
}): Promise<Resources & { close(): Promise<void> }> {
  const { config, log, tracing } = options;
  if (!config.databaseUrl || !config.temporal.address) throw new ConfigError('DATABASE_URL and TEMPORAL_ADDRESS are required');
  const knex = createKnex(config.databaseUrl, { max: config.databasePoolMax, name: options.poolName });
  const metrics = new ServiceMetrics({ pool: poolStats(knex) });
  let temporal: Client;
  try {
    temporal = await connectTemporalClient(
      endpointOf(config.temporal),
      config.temporal.namespace,
      30000,
      temporalClientInterceptors(metrics, tracing),
      (message) => log.warn(message),
    );
  } catch (err) {
    await knex.destroy();
    throw err;
  }
  return {
    config,
    knex,
    temporal,
    log,
    metrics,
    tracing,
    async close() {
      await temporal.connection.close();
      await knex.destroy();
    },
  };
}
