import type { Knex } from 'knex';
import * as jobs from '../../../db/jobs.repository';
import * as models from '../../../db/models.repository';
import * as subs from '../../../db/subscriptions.repository';
import type { UserSchemaCompiler } from '../../common';
import type { JobGateway } from '../../ports';
import { deterministicUuid } from '../../../ids';
import type { SubscriptionStore } from '../../ports';

/** A cascade that can never succeed however often it is retried (bad payload, no active version, ...). */
export class CascadeRejected extends Error {}

export interface FireInput {
  sourceJobId: string;
  subscriptionId: string;
  triggerOutput: Record<string, unknown>;
}

/** The payload a subscription hands its target: the stored input, or the trigger's output. */
export function cascadePayload(sub: subs.SubscriptionRow, triggerOutput: Record<string, unknown>): Record<string, unknown> {
  return sub.input_source === 'stored' ? (sub.input ?? {}) : triggerOutput;
}

/** The cascade job one subscription fires for one source job; its id derives from both, so it is created once. */
function cascadeJob(
  source: jobs.JobView,
  sub: subs.SubscriptionRow,
  version: string,
  payload: Record<string, unknown>,
  triggerOutput: Record<string, unknown>,
): jobs.NewJob {
  return {
    job_id: deterministicUuid('cascade', source.job_id, sub.subscription_id),
    model_id: sub.target_model_id,
    model_version: version,
    job_type: 'inference',
    trigger: 'cascade',
    client_id: source.client_id,
    domain_uuid: source.domain_uuid,
    service_uuid: source.service_uuid,
    source_job_id: source.job_id,
    subscription_id: sub.subscription_id,
    cascade_depth: source.cascade_depth + 1,
    root_job_id: source.root_job_id,
    input: payload,
    metadata: { trigger_output: triggerOutput, trigger_event: sub.trigger_event, label: sub.label },
  };
}

/**
 * Starts the target action of one subscription for one source job. The cascade job's id derives from
 * (source job, subscription), so a retry finds the job it already created and starts nothing twice.
 */
export async function fireSubscription(
  deps: { knex: Knex; schemas: UserSchemaCompiler; gateway: JobGateway; maxCascadeDepth: number },
  input: FireInput,
): Promise<{ job_id: string }> {
  const { knex, schemas, gateway } = deps;
  const source = await jobs.findJob(knex, input.sourceJobId);
  if (!source) throw new CascadeRejected(`source job ${input.sourceJobId} does not exist`);
  const jobId = deterministicUuid('cascade', input.sourceJobId, input.subscriptionId);

  let job = await jobs.findJob(knex, jobId);
  if (!job) {
    const sub = await subs.findSubscription(knex, input.subscriptionId);
    if (!sub) throw new CascadeRejected('subscription no longer exists');
    if (sub.status !== 'active')
      throw new CascadeRejected(`subscription is ${sub.status}; re-activate it after checking its input against the target`);
    if (source.cascade_depth + 1 > deps.maxCascadeDepth) {
      throw new CascadeRejected(`cascade depth limit of ${deps.maxCascadeDepth} reached`);
    }
    const target = await models.findModel(knex, sub.target_model_id);
    if (!target) throw new CascadeRejected(`target model ${sub.target_model_id} no longer exists`);
    const version = await models.newestVersion(knex, target.id, 'active');
    if (!version) throw new CascadeRejected(`target model ${target.id} has no active version`);
    const payload = cascadePayload(sub, input.triggerOutput);
    const inputSchema = target.handler_contracts?.inference?.input_schema;
    if (inputSchema !== undefined) {
      const problem = schemas.validate(inputSchema, payload);
      if (problem) throw new CascadeRejected(`payload does not match the input_schema of ${target.id}: ${problem}`);
    }
    ({ row: job } = await jobs.insertJob(knex, cascadeJob(source, sub, version.version, payload, input.triggerOutput)));
  }
  await gateway.launch(job);
  return { job_id: job.job_id };
}

/** A successful job's subscriptions, each as the cascade job to create or the reason it cannot fire. */
export interface CascadePlan {
  triggered: { subscription_id: string; job_id?: string; error?: string }[];
  jobs: jobs.NewJob[];
}

/**
 * What a successful job's subscriptions fire, checked as `fireSubscription` checks one (status, depth, target, active
 * version, input contract) but read in one statement: the cascade rows to insert in the outcome's transaction, and an
 * error entry for each subscription that cannot fire. Ids derive from (source job, subscription), as `fireSubscription`'s.
 */
export async function planCascades(
  subscriptions: SubscriptionStore,
  deps: { schemas: UserSchemaCompiler; maxCascadeDepth: number },
  source: jobs.JobView,
  triggerEvent: string,
  triggerOutput: Record<string, unknown>,
): Promise<CascadePlan> {
  const plan: CascadePlan = { triggered: [], jobs: [] };
  for (const sub of await subscriptions.triggeredWithTargets(source.model_id, triggerEvent)) {
    const reject = (error: string) => plan.triggered.push({ subscription_id: sub.subscription_id, error });
    if (sub.status !== 'active') {
      reject(`subscription is ${sub.status}; re-activate it after checking its input against the target`);
      continue;
    }
    if (source.cascade_depth + 1 > deps.maxCascadeDepth) {
      reject(`cascade depth limit of ${deps.maxCascadeDepth} reached`);
      continue;
    }
    if (!sub.target_exists) {
      reject(`target model ${sub.target_model_id} no longer exists`);
      continue;
    }
    if (!sub.target_version) {
      reject(`target model ${sub.target_model_id} has no active version`);
      continue;
    }
    const payload = cascadePayload(sub, triggerOutput);
    const inputSchema = sub.target_contracts?.inference?.input_schema;
    const problem = inputSchema === undefined ? undefined : deps.schemas.validate(inputSchema, payload);
    if (problem) {
      reject(`payload does not match the input_schema of ${sub.target_model_id}: ${problem}`);
      continue;
    }
    const job = cascadeJob(source, sub, sub.target_version, payload, triggerOutput);
    plan.triggered.push({ subscription_id: sub.subscription_id, job_id: job.job_id });
    plan.jobs.push(job);
  }
  return plan;
}
