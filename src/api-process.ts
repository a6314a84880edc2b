import { loadConfig, requireProductionSettings } from './config';
import { createLogger } from './logger';
import { createKnex } from './db/knex';
import { poolStats } from './db/pool-stats';
import { connectTemporalClient } from './temporal/connection';
import { clientMetricsInterceptor } from './temporal/client-metrics';
import { jobGatewayFor } from './temporal/job-gateway';
import { verifierFromConfig } from './auth/verifier';
import { createApp } from './app';
import { builtinImplementations } from '../activities/in-process/registry';
import { ServiceMetrics } from './observability/metrics';
import type { Tracing } from './observability/tracing';
import { drainServer } from './http/drain';
import { createHttpServer } from './http/server';
import { onShutdown } from './shutdown';

/** Production API process: reads the environment, connects, serves; on SIGTERM drains, then closes its pools. */
export async function runApi(tracing?: Tracing): Promise<void> {
  const config = loadConfig();
  requireProductionSettings(config);
  const log = createLogger(config.logLevel, 'api');
  const knex = createKnex(config.databaseUrl!, { max: config.databasePoolMax, name: 'mos-api' });
  const metrics = new ServiceMetrics({ pool: poolStats(knex) });
  const temporal = await connectTemporalClient(config.temporal.address!, config.temporal.namespace, 30000, [
    clientMetricsInterceptor(metrics),
    ...(tracing?.clientInterceptors ?? []),
  ]);
  const gateway = jobGatewayFor(temporal, config, metrics);
  const verify = verifierFromConfig(config.auth, log);
  const { app, serving, close } = createApp({
    config,
    knex,
    temporal,
    gateway,
    verify,
    log,
    metrics,
    inProcessNames: Object.keys(builtinImplementations),
  });
  const server = createHttpServer(app, config.http);
  server.listen(config.port, () => log.info({ port: config.port, tracing: Boolean(tracing) }, 'API listening'));
  onShutdown(log, async () => {
    // Requests holding a `?wait=` answer the job as it is now, so they do not hold up the drain.
    await close();
    await drainServer(server, serving, {
      delayMs: config.shutdown.delaySeconds * 1000,
      timeoutMs: config.shutdown.timeoutSeconds * 1000,
      log,
    });
    await temporal.connection.close();
    await knex.destroy();
    await tracing?.shutdown();
    log.info('API stopped');
  });
}
