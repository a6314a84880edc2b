import type { Knex } from 'knex';
import * as repo from '../../db/services.repository';
import type { ClientRow } from '../../db/clients.repository';
import type { DomainRow } from '../../db/domains.repository';
import { findVersion } from '../../db/models.repository';
import { UnprocessableError } from '../../errors';
import type { Schemas } from '../../openapi/types';
import type { JobsService } from '../jobs';
import type { Readiness } from '../ports';
import {
  assertClientActive,
  canonicalJson,
  emptyPreview,
  inChangeTransaction,
  requireClient,
  requireDomain,
  requireDomainOfActiveClient,
  requireService,
  runRefusal,
  toService,
  UNATTRIBUTED,
  type ChangeContext,
  type ChangePreview,
  type FeatureRules,
} from '../common';
import { governingVersion, inferenceJob, lockDefault, resolveOrThrow, runTarget } from './service-runs';

type Deps = { knex: Knex; rules: FeatureRules; jobs: JobsService };

/** The update's writes in its transaction: the features re-resolved, and the re-run staged when they changed. */
async function updateIn(
  deps: Deps,
  trx: Knex.Transaction,
  update: { client: ClientRow; domain: DomainRow; serviceId: string; body: Schemas['UpdateServiceRequest'] },
  ready: Readiness,
  preview: ChangePreview,
) {
  const { rules, jobs } = deps;
  const { client, domain, serviceId, body } = update;
  const locked = await lockDefault(trx, domain);
  const current = await requireService(trx, domain, serviceId, true);
  if (current.status === 'not_found') throw new UnprocessableError(`service ${serviceId} is not_found; initialize it again`);
  const { assignment, version } = governingVersion(domain, locked);
  const provided = body.static_features ?? current.provided_features;
  const resolved = resolveOrThrow(rules, version.features, provided, `${version.model_id}@${version.version}`);
  const rerun = canonicalJson(resolved) !== canonicalJson(current.resolved_features);
  if (rerun) assertClientActive(client);
  if (rerun) {
    preview.resolved_features_changes.push({ service_id: serviceId, before: current.resolved_features, after: resolved });
    preview.inference = { would_run: true, service_ids: [serviceId] };
  }
  const updated = await repo.updateService(trx, current.service_uuid, {
    ...(body.departure_datetime ? { departure_datetime: body.departure_datetime } : {}),
    provided_features: provided,
    resolved_features: resolved,
    ...(rerun ? { status: 'in_progress' as const } : {}),
  });
  const target = rerun ? await runTarget(rules, trx, domain, assignment, updated) : undefined;
  const staged = target
    ? await jobs.stage(trx, { ...inferenceJob(target, domain, client.client_id, updated.service_uuid), trigger: 'service_update' }, ready)
    : undefined;
  return { service: updated, staged };
}

/** The re-scoring of services: an update whose features change re-runs inference, and a schedule's fire stages one. */
export function createServiceRescores(deps: Deps) {
  const { knex, rules, jobs } = deps;

  return {
    /**
     * static_features replaces provided_features; features are re-resolved with the current freeze and
     * inference re-runs only when resolved_features change. A departure-only change runs nothing.
     */
    async update(
      clientId: string,
      domainId: string,
      serviceId: string,
      body: Schemas['UpdateServiceRequest'],
      change: ChangeContext = UNATTRIBUTED,
    ) {
      const client = await requireClient(knex, clientId);
      const domain = await requireDomain(knex, clientId, domainId);
      const preview = emptyPreview();
      // Asked before the transaction (no Temporal call while it holds the domain's lock); refused only if a job is staged.
      const ready = await jobs.readiness();
      // On a dry run the job is staged and rolled back with the rest: it is never launched.
      const { service, staged } = await inChangeTransaction(knex, change, (trx) =>
        updateIn(deps, trx, { client, domain, serviceId, body }, ready, preview),
      );
      if (change.dryRun) return { ...toService(service, domainId), preview };
      const launched = staged ? await jobs.launch(staged) : undefined;
      return { ...toService(service, domainId), ...(launched ? { job_id: launched.job_id } : {}) };
    },

    /**
     * Stages inference of the service with its current features in the caller's transaction: a schedule's fire
     * (src/domain/schedule-fires.ts). The rules of a re-scoring update: an active tenant, a service that is not
     * `not_found` and has not departed, the domain's default assignment to an active version whose freeze the
     * features satisfy. The service moves to `in_progress`; a broken rule throws its 404/422 error.
     */
    async stageRescore(
      trx: Knex.Transaction,
      target: { clientId: string; domainId: string; serviceId: string },
      job: { job_id: string; trigger: 'schedule'; schedule_id: string; scheduled_at: Date; metadata: Record<string, unknown> },
      ready: Readiness,
    ) {
      const domain = await requireDomainOfActiveClient(trx, target.clientId, target.domainId);
      const locked = await lockDefault(trx, domain);
      const current = await requireService(trx, domain, target.serviceId, true);
      if (current.status === 'not_found') throw new UnprocessableError(`service ${target.serviceId} is not_found; initialize it again`);
      if (current.departure_datetime.getTime() <= Date.now()) {
        throw new UnprocessableError(`service ${target.serviceId} departed at ${current.departure_datetime.toISOString()}`);
      }
      const { assignment, version } = governingVersion(domain, locked);
      const row = await findVersion(trx, assignment.model_id, assignment.model_version);
      const refusal = runRefusal(`${assignment.model_id}@${assignment.model_version}`, row?.status ?? 'archived', 'assigned');
      if (refusal) throw new UnprocessableError(`assigned ${refusal}`);
      const resolved = resolveOrThrow(rules, version.features, current.provided_features, `${version.model_id}@${version.version}`);
      const updated = await repo.updateService(trx, current.service_uuid, { resolved_features: resolved, status: 'in_progress' });
      const run = await runTarget(rules, trx, domain, assignment, updated);
      return jobs.stage(trx, { ...job, ...inferenceJob(run, domain, target.clientId, updated.service_uuid) }, ready);
    },
  };
}
