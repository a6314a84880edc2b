import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { ServiceMetrics } from '../observability/metrics';
import { UserSchemaCompiler } from '../domain/shared/json-schemas';
import { createJobSlots } from '../domain/jobs/launch/job-slots';
import { startSlotReleaser } from '../domain/jobs/launch/slot-releaser';
import type { JobGateway } from '../domain/ports/job-gateway.port';

/** The releaser of held jobs (src/domain/jobs/launch/slot-releaser.ts) as configured: limit defaults and metric labels from the config. */
export function slotReleaserFor(deps: {
  knex: Knex;
  gateway: JobGateway;
  log: Logger;
  metrics?: ServiceMetrics;
  config: Config;
  sweepMs?: number;
}) {
  const { knex, gateway, log, metrics, config } = deps;
  const slots = createJobSlots({
    knex,
    gateway,
    schemas: new UserSchemaCompiler(),
    log,
    metrics,
    defaults: config.limits,
    perTenantMetrics: config.metricsPerTenant,
  });
  return startSlotReleaser({ knex, slots, log, sweepMs: deps.sweepMs });
}
