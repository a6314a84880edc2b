import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Outbox } from '../../webhooks';
import type { JobGateway } from '../../ports';
import type { ServiceMetrics } from '../../../observability/metrics';
import type { UserSchemaCompiler } from '../../common';
import type { JobSlots } from '../launch/job-slots';
import type { SecretBox } from '../../../secrets/secret-box';
import { createDispatchSteps } from './job-dispatch-steps';
import { createOutcomeSteps } from './job-outcome-steps';

export interface JobRunsDeps {
  knex: Knex;
  schemas: UserSchemaCompiler;
  gateway: JobGateway;
  log: Logger;
  maxCascadeDepth: number;
  metrics?: ServiceMetrics;
  /** The tenants' running-job caps, which cascade jobs count against (the tenant of their source job). */
  slots?: JobSlots;
  /** Metric series per tenant id instead of per tenant class (METRICS_PER_TENANT). */
  perTenantMetrics?: boolean;
  /** Opens the `http` handlers' signing secrets for the moment of signing. */
  secrets: Pick<SecretBox, 'open'>;
  /** Where the outcomes' events (job, service, version, a guardrail's rollback) are written, with the outcome. */
  outbox: Outbox;
}

/**
 * The steps a job's workflow runs, as application functions: the activities (activities/index.ts) call these and
 * add only what is theirs (the run id, the handler clients, failure classification).
 */
export function createJobRuns(deps: JobRunsDeps) {
  return { ...createDispatchSteps(deps), ...createOutcomeSteps(deps) };
}

export type JobRuns = ReturnType<typeof createJobRuns>;
