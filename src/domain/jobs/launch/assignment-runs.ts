import type { Knex } from 'knex';
import * as models from '../../../db/models.repository';
import * as assignmentsRepo from '../../../db/assignments.repository';
import { requireDomainOfActiveClient, requireService, requireModel, runRefusal, type FeatureRules } from '../../common';
import type { JobsService } from '../jobs.service';
import type { JobRequestContext } from '../job-staging.service';
import { NotFoundError, UnprocessableError } from '../../../errors';
import type { Schemas } from '../../../openapi/types';
import { canaryRouteFor } from '../../assignments';

type StartBody = Schemas['JobStartRequest'];

/** Starts inference of an assignment's revision for the tenant, domain and service it runs for. */
async function runAssignment(
  deps: { knex: Knex; jobs: JobsService },
  assignment: assignmentsRepo.AssignmentRow,
  where: { clientId: string; domainUuid: string; serviceUuid?: string },
  body: StartBody,
  ctx: JobRequestContext,
) {
  const { knex, jobs } = deps;
  const version = await models.findVersion(knex, assignment.model_id, assignment.model_version);
  const refusal = version
    ? runRefusal(`${assignment.model_id}@${assignment.model_version}`, version.status, 'assigned')
    : `assigned version ${assignment.model_id}@${assignment.model_version} does not exist`;
  if (refusal) throw new UnprocessableError(refusal);
  const model = await requireModel(knex, assignment.model_id);
  const input = body.input ?? {};
  jobs.assertInputFits(model.handler_contracts, 'inference', input);
  return jobs.start(ctx, (_trx, stage) =>
    stage({
      model_id: assignment.model_id,
      model_version: assignment.model_version,
      job_type: 'inference',
      trigger: 'assignment',
      assignment_id: assignment.assignment_id,
      client_id: where.clientId,
      domain_uuid: where.domainUuid,
      service_uuid: where.serviceUuid ?? null,
      input,
      metadata: { ...body.metadata, assignment_key: assignment.assignment_key, settings: assignment.settings, role: assignment.role },
      priority: body.priority,
    }),
  );
}

/** The first scope's active assignment under the key; 422 when only archived revisions exist, 404 when none. */
async function findRunnable(knex: Knex, scopes: assignmentsRepo.Scope[], key: string) {
  for (const scope of scopes) {
    const row = await assignmentsRepo.findActive(knex, scope, key);
    if (row) return row;
  }
  for (const scope of scopes) {
    if (await assignmentsRepo.hasRevisions(knex, scope, key))
      throw new UnprocessableError(`assignment ${key} is archived and launches no jobs`);
  }
  throw new NotFoundError(`no assignment under key ${key}`);
}

/** The routes that run an assignment: the domain's, or the service's effective one. */
export function createAssignmentRuns(deps: { knex: Knex; jobs: JobsService; rules: FeatureRules }) {
  const { knex } = deps;

  return {
    async runDomainAssignment(clientId: string, domainId: string, key: string, body: StartBody, ctx: JobRequestContext) {
      const domain = await requireDomainOfActiveClient(knex, clientId, domainId);
      const scope = { domainUuid: domain.domain_uuid, domainId };
      const assignment = await findRunnable(knex, [scope], key);
      return runAssignment(deps, assignment, { clientId, domainUuid: domain.domain_uuid }, body, ctx);
    },

    /** Runs the service's effective assignment under the key: its own, else the domain's. */
    async runServiceAssignment(
      clientId: string,
      domainId: string,
      serviceId: string,
      key: string,
      body: StartBody,
      ctx: JobRequestContext,
    ) {
      const domain = await requireDomainOfActiveClient(knex, clientId, domainId);
      const service = await requireService(knex, domain, serviceId);
      const effective = await findRunnable(
        knex,
        [
          { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId },
          { domainUuid: domain.domain_uuid, domainId },
        ],
        key,
      );
      // A service in the share of a canary challenging the domain's key runs the candidate (docs/progressive-delivery.md).
      const assignment = (await canaryRouteFor(knex, deps.rules, effective, serviceId))?.assignment ?? effective;
      return runAssignment(deps, assignment, { clientId, domainUuid: domain.domain_uuid, serviceUuid: service.service_uuid }, body, ctx);
    },
  };
}
