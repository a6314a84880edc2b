import { loadConfig, requireProductionSettings } from './config';
import { createLogger } from './logger';
import { composeApi, openResources } from './composition';
import type { Tracing } from './observability/tracing';
import { onShutdown } from './shutdown';

/** Production API process: reads the environment, connects, serves; on SIGTERM drains, then closes its pools. */
export async function runApi(tracing?: Tracing): Promise<void> {
  const config = loadConfig();
  requireProductionSettings(config);
  const log = createLogger(config.logLevel, 'api');
  const resources = await openResources({ config, log, poolName: 'mos-api', tracing });
  const api = composeApi({ ...resources, drain: true });
  await api.listen(config.port);
  log.info({ port: config.port, tracing: Boolean(tracing) }, 'API listening');
  onShutdown(log, async () => {
    await api.close();
    await resources.close();
    await tracing?.shutdown();
    log.info('API stopped');
  });
}
