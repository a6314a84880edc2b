import type { JobView } from '../../db/jobs.repository';
import type { SubscriptionWithTarget } from '../../db/subscriptions.repository';

/**
 * What the job rules read and write of jobs, so the rules (the completion's answer, re-runs) can be tested without
 * Postgres: `jobStore(db)` in src/db/jobs.repository.ts is the Postgres one, test/helpers/memory-stores.ts an
 * in-memory one.
 */
export interface JobStore {
  findJob(jobId: string): Promise<JobView | undefined>;
  /** Temporal answered the job's completion update: the reconciler need not deliver its outcome again. */
  confirmOutcome(jobId: string): Promise<void>;
}

/** What cascade planning reads of subscriptions; `subscriptionStore(db)` in src/db/subscriptions.repository.ts. */
export interface SubscriptionStore {
  /** The active and inactive subscriptions of `sourceModelId` to `triggerEvent`, each with what its target has now. */
  triggeredWithTargets(sourceModelId: string, triggerEvent: string): Promise<SubscriptionWithTarget[]>;
}
