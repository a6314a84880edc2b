import { runRefusal } from '../common';
import { inTransaction } from '../../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../../db/services.repository';
import { shareLockActiveWithFreeze } from '../../db/assignments.repository';
import { requireClient, assertClientActive, requireDomain, requireDomainOfActiveClient, requireService } from '../common';
import { DEFAULT_ASSIGNMENT_KEY } from '../assignments';
import type { FeatureRules, FeatureValues } from '../common';
import { formatFeatureProblems } from '../common';
import { canMoveService, SERVICE_TRANSITIONS } from './service-status';
import type { JobsService, JobRequestContext, StageJob } from '../jobs';
import type { Readiness } from '../ports';
import { mapPage, type PageRequest } from '../../paging';
import type { DomainRow } from '../../db/domains.repository';
import { ConflictError, UnprocessableError } from '../../errors';
import type { Db } from '../../db/types';
import { canonicalJson } from '../common';
import { toService } from '../common';
import type { Schemas } from '../../openapi/types';
import { findVersion } from '../../db/models.repository';
import { webhookEvents } from '../webhooks';
import { emptyPreview, inChangeTransaction, UNATTRIBUTED, type ChangeContext } from '../common';
import type { AssignmentRow } from '../../db/assignments.repository';
import { canaryRouteFor } from '../assignments';

export function createServicesService(deps: { knex: Knex; rules: FeatureRules; jobs: JobsService }) {
  const { knex, rules, jobs } = deps;

  /**
   * Share-locks the domain (assignment and feature changes of it wait) and reads its active default assignment
   * with the assigned version's freeze, in one statement.
   */
  const lockDefault = (trx: Db, domain: DomainRow) => shareLockActiveWithFreeze(trx, domain.domain_uuid, DEFAULT_ASSIGNMENT_KEY);

  /** The version whose freeze governs the domain's services: that of the active default assignment (422 cases of spec part 4). */
  function governingVersion(domain: DomainRow, locked: Awaited<ReturnType<typeof lockDefault>>) {
    if (domain.status !== 'active') throw new UnprocessableError(`domain ${domain.domain_id} is not active`);
    if (!locked) throw new UnprocessableError(`domain ${domain.domain_id} has no model assigned`);
    const { version_features, ...assignment } = locked;
    return { assignment, version: { model_id: assignment.model_id, version: assignment.model_version, features: version_features } };
  }

  function resolveOrThrow(frozen: Parameters<FeatureRules['resolve']>[0], provided: FeatureValues, modelRef: string) {
    const problems = rules.valueProblems(frozen, provided);
    if (problems.length) throw new UnprocessableError(`feature contract mismatch with ${modelRef}: ${formatFeatureProblems(problems)}`);
    return rules.resolve(frozen, provided);
  }

  function inferenceInput(domain: DomainRow, service: repo.ServiceRow) {
    return {
      client_id: domain.client_id,
      domain_id: domain.domain_id,
      service_id: service.service_id,
      departure_datetime: service.departure_datetime.toISOString(),
      features: service.resolved_features,
    };
  }

  /**
   * The revision and input a service's inference runs with: the active canary's candidate when the service is in its
   * share and fits the candidate's freeze (features resolved under that freeze), else the primary's.
   */
  async function runTarget(trx: Db, domain: DomainRow, primary: AssignmentRow, service: repo.ServiceRow) {
    const canary = await canaryRouteFor(trx, rules, primary, service.service_id);
    const input = inferenceInput(domain, service);
    if (!canary) return { assignment: primary, input };
    return { assignment: canary.assignment, input: { ...input, features: rules.resolve(canary.freeze, service.provided_features) } };
  }

  type InitBody = Schemas['InitServiceRequest'];

  /** Writes the service and its inference job in the caller's transaction. */
  async function stageInit(trx: Knex.Transaction, stage: StageJob, domain: DomainRow, body: InitBody) {
    const { assignment, version } = governingVersion(domain, await lockDefault(trx, domain));
    const resolved = resolveOrThrow(version.features, body.static_features, `${version.model_id}@${version.version}`);
    const { row } = await repo.upsertService(trx, domain.domain_uuid, body.service_id, {
      status: 'in_progress',
      departure_datetime: body.departure_datetime,
      provided_features: body.static_features,
      resolved_features: resolved,
    });
    const target = await runTarget(trx, domain, assignment, row);
    return stage({
      model_id: target.assignment.model_id,
      model_version: target.assignment.model_version,
      job_type: 'inference',
      trigger: 'service_init',
      assignment_id: target.assignment.assignment_id,
      client_id: domain.client_id,
      domain_uuid: domain.domain_uuid,
      service_uuid: row.service_uuid,
      input: target.input,
      priority: body.priority,
    });
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
      const { service, staged } = await inChangeTransaction(knex, change, async (trx) => {
        const locked = await lockDefault(trx, domain);
        const current = await requireService(trx, domain, serviceId, true);
        if (current.status === 'not_found') throw new UnprocessableError(`service ${serviceId} is not_found; initialize it again`);
        const { assignment, version } = governingVersion(domain, locked);
        const provided = body.static_features ?? current.provided_features;
        const resolved = resolveOrThrow(version.features, provided, `${version.model_id}@${version.version}`);
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
        const target = rerun ? await runTarget(trx, domain, assignment, updated) : undefined;
        const staged = target
          ? await jobs.stage(
              trx,
              {
                model_id: target.assignment.model_id,
                model_version: target.assignment.model_version,
                job_type: 'inference',
                trigger: 'service_update',
                assignment_id: target.assignment.assignment_id,
                client_id: clientId,
                domain_uuid: domain.domain_uuid,
                service_uuid: updated.service_uuid,
                input: target.input,
              },
              ready,
            )
          : undefined;
        return { service: updated, staged };
      });
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
      const resolved = resolveOrThrow(version.features, current.provided_features, `${version.model_id}@${version.version}`);
      const updated = await repo.updateService(trx, current.service_uuid, { resolved_features: resolved, status: 'in_progress' });
      const run = await runTarget(trx, domain, assignment, updated);
      return jobs.stage(
        trx,
        {
          ...job,
          model_id: run.assignment.model_id,
          model_version: run.assignment.model_version,
          job_type: 'inference',
          assignment_id: run.assignment.assignment_id,
          client_id: target.clientId,
          domain_uuid: domain.domain_uuid,
          service_uuid: updated.service_uuid,
          input: run.input,
        },
        ready,
      );
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
        if (status !== current.status) await webhookEvents.serviceStatusChanged(trx, current.service_uuid);
        return toService(updated, domainId);
      });
    },
  };
}
