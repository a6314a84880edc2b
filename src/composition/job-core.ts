import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { ServiceMetrics } from '../observability/metrics';
import { createSecretBox } from '../secrets/secret-box';
import { FeatureRules, UserSchemaCompiler } from '../domain/common';
import { createAdmission, createJobSlots } from '../domain/jobs';
import type { JobGateway } from '../domain/ports';
import { createOutbox } from '../domain/webhooks';
import { outboxStore } from '../db/outbox.repository';

/**
 * What the API's and the worker's services share within one composition: built once and passed to each, so that
 * one compiled-schema cache, one secret box and one view of the tenants' running-job slots serve them all. The
 * outbox writes the webhook events on the Postgres store of each change's transaction.
 */
export function createJobCore(deps: { config: Config; knex: Knex; gateway: JobGateway; log: Logger; metrics?: ServiceMetrics }) {
  const { config, knex, gateway, log, metrics } = deps;
  const { limits: defaults, metricsPerTenant: perTenantMetrics } = config;
  const schemas = new UserSchemaCompiler();
  const outbox = createOutbox(outboxStore);
  return {
    schemas,
    rules: new FeatureRules(schemas),
    secrets: createSecretBox(config.secretKeys),
    admission: createAdmission({ knex, defaults, metrics, perTenantMetrics }),
    slots: createJobSlots({ knex, gateway, schemas, log, metrics, defaults, perTenantMetrics, outbox }),
    outbox,
    defaults,
    perTenantMetrics,
  };
}

export type JobCore = ReturnType<typeof createJobCore>;
