import { inTransaction } from '../db/transaction';
import type { Knex } from 'knex';
import * as models from '../db/models.repository';
import * as assignmentsRepo from '../db/assignments.repository';
import { requireDomainOfActiveClient, requireService, requireVersion, requireModel } from './lookups';
import { TRAINABLE_STATUSES } from './version-status';
import type { JobsService, JobRequestContext } from './jobs';
import { ConflictError, NotFoundError, UnprocessableError } from '../errors';
import type { Schemas } from '../openapi/types';
import { webhookEvents } from '../webhooks/outbox';

type StartBody = Schemas['JobStartRequest'];

/** The routes that start jobs on purpose: training, direct inference, and running an assignment. */
export function createJobStarts(deps: { knex: Knex; jobs: JobsService }) {
  const { knex, jobs } = deps;

  async function runAssignment(
    assignment: assignmentsRepo.AssignmentRow,
    where: { clientId: string; domainUuid: string; serviceUuid?: string },
    body: StartBody,
    ctx: JobRequestContext,
  ) {
    const version = await models.findVersion(knex, assignment.model_id, assignment.model_version);
    if (version?.status !== 'active')
      throw new UnprocessableError(`assigned version ${assignment.model_id}@${assignment.model_version} is not active`);
    const model = await requireModel(knex, assignment.model_id);
    const input = body.input ?? {};
    jobs.assertInputFits(model.handler_contracts, 'inference', input);
    return jobs.once(ctx, async () => {
      const job = await jobs.stage(
        knex,
        {
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
        },
        ctx,
      );
      return jobs.launch(job);
    });
  }

  /** The first scope's active assignment under the key; 422 when only archived revisions exist, 404 when none. */
  async function findRunnable(scopes: assignmentsRepo.Scope[], key: string) {
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

  return {
    /** Moves the version to `training` and starts the training job, in one transaction. */
    async train(modelId: string, version: string, body: StartBody, ctx: JobRequestContext) {
      const model = await requireModel(knex, modelId);
      const input = body.input ?? {};
      jobs.assertInputFits(model.handler_contracts, 'training', input);
      return jobs.once(ctx, async () => {
        const job = await inTransaction(knex, async (trx) => {
          const current = await models.lockVersion(trx, modelId, version);
          if (!current) await requireVersion(trx, modelId, version);
          if (!TRAINABLE_STATUSES.includes(current!.status)) {
            throw new ConflictError(`version ${version} is ${current!.status}; training starts from ${TRAINABLE_STATUSES.join(' or ')}`);
          }
          await models.setVersionStatus(trx, modelId, version, 'training');
          await webhookEvents.versionStatusChanged(trx, modelId, version); // webhooks (#16): outbox row in this transaction
          return jobs.stage(
            trx,
            { model_id: modelId, model_version: version, job_type: 'training', trigger: 'direct', input, metadata: body.metadata },
            ctx,
          );
        });
        return jobs.launch(job);
      });
    },

    async infer(modelId: string, version: string, body: StartBody, ctx: JobRequestContext) {
      const model = await requireModel(knex, modelId);
      const row = await requireVersion(knex, modelId, version);
      if (row.status !== 'active') throw new UnprocessableError(`version ${version} is ${row.status}; inference needs an active version`);
      const input = body.input ?? {};
      jobs.assertInputFits(model.handler_contracts, 'inference', input);
      return jobs.once(ctx, async () =>
        jobs.launch(
          await jobs.stage(
            knex,
            { model_id: modelId, model_version: version, job_type: 'inference', trigger: 'direct', input, metadata: body.metadata },
            ctx,
          ),
        ),
      );
    },

    async runDomainAssignment(clientId: string, domainId: string, key: string, body: StartBody, ctx: JobRequestContext) {
      const domain = await requireDomainOfActiveClient(knex, clientId, domainId);
      const scope = { domainUuid: domain.domain_uuid, domainId };
      const assignment = await findRunnable([scope], key);
      return runAssignment(assignment, { clientId, domainUuid: domain.domain_uuid }, body, ctx);
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
      const assignment = await findRunnable(
        [
          { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId },
          { domainUuid: domain.domain_uuid, domainId },
        ],
        key,
      );
      return runAssignment(assignment, { clientId, domainUuid: domain.domain_uuid, serviceUuid: service.service_uuid }, body, ctx);
    },
  };
}
