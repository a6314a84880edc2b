import type { JobView } from '../jobs';
import type { SubscriptionWithTarget } from '../models';

/**
 * What the job rules read and write of jobs, so the rules (the completion's answer, re-runs) can be tested without
 * Postgres: `jobStore(db)` in src/db/job-store.ts is the Postgres one, `MemoryJobStore` in src/db/memory/ the
 * in-memory one.
 */
export interface JobStore {
  findJob(jobId: string): Promise<JobView | undefined>;
  /** Temporal answered the job's completion update: the reconciler need not deliver its outcome again. */
  confirmOutcome(jobId: string): Promise<void>;
}

/** What cascade planning reads of subscriptions; `subscriptionStore(db)` in src/db/subscriptions.repository.ts, `MemorySubscriptionStore` in src/db/memory/. */
export interface SubscriptionStore {
  /** The active and inactive subscriptions of `sourceModelId` to `triggerEvent`, each with what its target has now. */
  triggeredWithTargets(sourceModelId: string, triggerEvent: string): Promise<SubscriptionWithTarget[]>;
}
