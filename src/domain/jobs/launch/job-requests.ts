import type { Knex } from 'knex';
import * as models from '../../../db/models.repository';
import { requireClient, assertClientActive, requireVersion, requireModel } from '../../common';
import { runRefusal, TRAINABLE_STATUSES } from '../../common';
import type { JobsService } from '../jobs.service';
import type { JobRequestContext, StageJob } from '../job-staging.service';
import { ConflictError, ForbiddenError, UnprocessableError } from '../../../errors';
import { TERMINAL_JOB_STATUSES, type JobView } from '../../../db/jobs.repository';
import { findServiceByUuid, lockServiceByUuid, updateService } from '../../../db/services.repository';
import type { Principal } from '../../../auth/principal';
import type { Schemas } from '../../../openapi/types';
import type { Outbox } from '../../webhooks';
import type { FeatureRules } from '../../common';
import { createAssignmentRuns } from './assignment-runs';

type StartBody = Schemas['JobStartRequest'];

/**
 * The re-run rules read from the job alone: a training re-run needs train_model (403), a shadow job is not re-run
 * (422), only a final job is re-run (409).
 */
export function assertRerunnable(principal: Principal, original: JobView): void {
  if (original.job_type === 'training' && !principal.permissions.has('train_model')) {
    throw new ForbiddenError('re-running a training job needs permission train_model');
  }
  if (original.trigger === 'shadow') {
    // A re-run is a job of the service: a shadow's would move it (docs/progressive-delivery.md).
    throw new UnprocessableError(`job ${original.job_id} is a shadow job, which is not re-run; re-run the primary job it shadows instead`);
  }
  if (!TERMINAL_JOB_STATUSES.includes(original.status)) {
    throw new ConflictError(`job ${original.job_id} is ${original.status}; re-run it once it is final (or cancel it first)`);
  }
}

/**
 * The job a re-run stages: the original's model version, input and context (tenant, domain, service, assignment),
 * linked by `rerun_of`; its metadata without a cascade's trigger fields, unless it ran on a trigger's output.
 */
export function rerunOf(original: JobView) {
  const { trigger_output, trigger_event, label, ...kept } = original.metadata ?? {};
  return {
    model_id: original.model_id,
    model_version: original.model_version,
    job_type: original.job_type,
    trigger: 'rerun' as const,
    assignment_id: original.assignment_id,
    client_id: original.client_id,
    domain_uuid: original.domain_uuid,
    service_uuid: original.service_uuid,
    rerun_of: original.job_id,
    input: original.input ?? {},
    // A cascade's handler is told the trigger's output again: it is part of what it ran on.
    metadata: { ...kept, ...(trigger_output !== undefined ? { trigger_output, trigger_event, label } : {}) },
  };
}

/** Moves a trainable version to `training` under its lock (409 from any other status), in the caller's transaction. */
export async function moveToTraining(outbox: Outbox, trx: Knex.Transaction, modelId: string, version: string): Promise<void> {
  const current = await models.lockVersion(trx, modelId, version);
  if (!current) await requireVersion(trx, modelId, version);
  if (!TRAINABLE_STATUSES.includes(current!.status)) {
    throw new ConflictError(`version ${version} is ${current!.status}; training starts from ${TRAINABLE_STATUSES.join(' or ')}`);
  }
  await models.setVersionStatus(trx, modelId, version, 'training');
  await outbox(trx).versionStatusChanged(modelId, version); // the webhook event's outbox row commits with the change
}

/**
 * A re-run staged under the rules of a fresh start, in the start's transaction: a training re-run moves its version
 * to `training`; an inference re-run needs a runnable version and moves its service to `in_progress`.
 */
async function stageRerun(outbox: Outbox, trx: Knex.Transaction, stage: StageJob, original: JobView, job: ReturnType<typeof rerunOf>) {
  if (original.job_type === 'training') {
    await moveToTraining(outbox, trx, original.model_id, original.model_version);
  } else {
    const version = await requireVersion(trx, original.model_id, original.model_version);
    const refusal = runRefusal(original.model_version, version.status, original.assignment_id ? 'assigned' : 'direct');
    if (refusal) throw new UnprocessableError(refusal);
    if (original.service_uuid) {
      await lockServiceByUuid(trx, original.service_uuid);
      const service = await findServiceByUuid(trx, original.service_uuid);
      if (!service || service.status === 'not_found') {
        throw new UnprocessableError(`the job's service is ${service ? 'not_found' : 'gone'}; initialize it again`);
      }
      if (service.status !== 'in_progress') await updateService(trx, original.service_uuid, { status: 'in_progress' });
    }
  }
  return stage(job);
}

/** The routes that start jobs on purpose: training, direct inference, and running an assignment. */
export function createJobStarts(deps: { knex: Knex; jobs: JobsService; rules: FeatureRules; outbox: Outbox }) {
  const { knex, jobs, outbox } = deps;

  return {
    /**
     * Starts a new job with the original's model version, input, metadata and context (tenant, domain, service),
     * linked by `rerun_of`, under the rules of a fresh start: a suspended tenant or an inactive version is a 422, a
     * training re-run needs a trainable version (409) and moves it to `training`, a service re-run moves the
     * service to `in_progress`. Only a final job is re-run (409 while it is pending or running).
     */
    async rerun(principal: Principal, jobId: string, ctx: JobRequestContext) {
      const original = await jobs.findVisible(principal, jobId);
      assertRerunnable(principal, original);
      if (original.client_id) assertClientActive(await requireClient(knex, original.client_id));
      const model = await requireModel(knex, original.model_id);
      const job = rerunOf(original);
      jobs.assertInputFits(model.handler_contracts, original.job_type, job.input);
      return jobs.start(ctx, (trx, stage) => stageRerun(outbox, trx, stage, original, job));
    },

    /** Moves the version to `training` and starts the training job, in one transaction. */
    async train(modelId: string, version: string, body: StartBody, ctx: JobRequestContext) {
      const model = await requireModel(knex, modelId);
      const input = body.input ?? {};
      jobs.assertInputFits(model.handler_contracts, 'training', input);
      return jobs.start(ctx, async (trx, stage) => {
        await moveToTraining(outbox, trx, modelId, version);
        return stage({
          model_id: modelId,
          model_version: version,
          job_type: 'training',
          trigger: 'direct',
          input,
          metadata: body.metadata,
          priority: body.priority,
        });
      });
    },

    /**
     * The version is read under a share lock in the transaction that stages the job, as a training start holds its
     * version: a deletion or archiving (which lock it for update) waits for the job row and then counts it, or wins
     * first and this start reads the version gone or archived. The model's row is shared too, against its deletion.
     */
    async infer(modelId: string, version: string, body: StartBody, ctx: JobRequestContext) {
      const model = await requireModel(knex, modelId);
      const input = body.input ?? {};
      jobs.assertInputFits(model.handler_contracts, 'inference', input);
      const refuse = (row: models.VersionRow) => {
        const refusal = runRefusal(version, row.status, 'direct');
        if (refusal) throw new UnprocessableError(refusal);
      };
      // Refused before the Idempotency-Key is looked at, as before any start; checked again under the lock.
      refuse(await requireVersion(knex, modelId, version));
      return jobs.start(ctx, async (trx, stage) => {
        await models.shareModel(trx, modelId);
        const row = await models.findVersionForShare(trx, modelId, version);
        refuse(row ?? (await requireVersion(trx, modelId, version)));
        return stage({
          model_id: modelId,
          model_version: version,
          job_type: 'inference',
          trigger: 'direct',
          input,
          metadata: body.metadata,
          priority: body.priority,
        });
      });
    },

    ...createAssignmentRuns(deps),
  };
}
