import { inTransaction } from '../../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../../db/services.repository';
import { requireDomain, requireDomainOfActiveClient, requireService } from '../common';
import type { FeatureRules } from '../common';
import { canMoveService, SERVICE_TRANSITIONS } from './service-status';
import type { JobsService, JobRequestContext, StageJob } from '../jobs';
import { mapPage, type PageRequest } from '../../paging';
import type { DomainRow } from '../../db/domains.repository';
import { ConflictError } from '../../errors';
import { toService } from '../common';
import type { Schemas } from '../../openapi/types';
import type { Outbox } from '../webhooks';
import { governingVersion, inferenceJob, lockDefault, resolveOrThrow, runTarget } from './service-runs';
import { createServiceRescores } from './service-rescores.service';

export function createServicesService(deps: { knex: Knex; rules: FeatureRules; jobs: JobsService; outbox: Outbox }) {
  const { knex, rules, jobs, outbox } = deps;

  type InitBody = Schemas['InitServiceRequest'];

  /** Writes the service and its inference job in the caller's transaction. */
  async function stageInit(trx: Knex.Transaction, stage: StageJob, domain: DomainRow, body: InitBody) {
    const { assignment, version } = governingVersion(domain, await lockDefault(trx, domain));
    const resolved = resolveOrThrow(rules, version.features, body.static_features, `${version.model_id}@${version.version}`);
    const { row } = await repo.upsertService(trx, domain.domain_uuid, body.service_id, {
      status: 'in_progress',
      departure_datetime: body.departure_datetime,
      provided_features: body.static_features,
      resolved_features: resolved,
    });
    const target = await runTarget(rules, trx, domain, assignment, row);
    return stage({ ...inferenceJob(target, domain, domain.client_id, row.service_uuid), trigger: 'service_init', priority: body.priority });
  }

  return {
    /**
     * Validates static_features against the default assignment's freeze, stores provided and resolved features,
     * and starts inference. Init of an existing service_id re-initializes it with a new job.
     */
    async init(clientId: string, domainId: string, body: InitBody, ctx: JobRequestContext) {
      const domain = await requireDomainOfActiveClient(knex, clientId, domainId);
      const started = await jobs.start(ctx, (trx, stage) => stageInit(trx, stage, domain, body));
      return { ...started, accepted: { service_id: body.service_id, ...started.accepted } };
    },

    async get(clientId: string, domainId: string, serviceId: string) {
      const row = await repo.findServiceByIds(knex, clientId, domainId, serviceId);
      if (row) return toService(row, domainId);
      // Not found: the lookups below say which of client, domain or service is missing.
      const domain = await requireDomain(knex, clientId, domainId);
      return toService(await requireService(knex, domain, serviceId), domainId);
    },

    async list(clientId: string, domainId: string, page: PageRequest, filter: { status?: string; departed?: boolean }) {
      const domain = await requireDomain(knex, clientId, domainId);
      return mapPage(await repo.listServices(knex, domain.domain_uuid, page, filter), (r) => toService(r, domainId));
    },

    async setStatus(clientId: string, domainId: string, serviceId: string, status: repo.ServiceStatus) {
      const domain = await requireDomain(knex, clientId, domainId);
      return inTransaction(knex, async (trx) => {
        const current = await requireService(trx, domain, serviceId, true);
        if (!canMoveService(current.status, status)) {
          const allowed = SERVICE_TRANSITIONS[current.status];
          throw new ConflictError(
            `service ${serviceId} is ${current.status} and cannot become ${status}; allowed: ${allowed.join(', ') || 'none (initialize it again)'}`,
          );
        }
        const updated = await repo.updateService(trx, current.service_uuid, { status });
        if (status !== current.status) await outbox(trx).serviceStatusChanged(current.service_uuid);
        return toService(updated, domainId);
      });
    },

    ...createServiceRescores(deps),
  };
}
