import type { JobStore, SubscriptionStore } from '../../domain/ports';
import type { JobView } from '../../domain/jobs';
import type { SubscriptionWithTarget } from '../../domain/models';

/** Jobs in a map: the job rules' store without Postgres (src/domain/ports/job-stores.port.ts; Postgres: ../job-store.ts). */
export class MemoryJobStore implements JobStore {
  readonly jobs = new Map<string, JobView>();
  readonly confirmed: string[] = [];

  put(job: JobView): JobView {
    this.jobs.set(job.job_id, job);
    return job;
  }

  async findJob(jobId: string): Promise<JobView | undefined> {
    return this.jobs.get(jobId);
  }

  async confirmOutcome(jobId: string): Promise<void> {
    this.confirmed.push(jobId);
  }
}

/** Subscriptions with their targets' state, as `triggeredWithTargets` reads them, in creation order (Postgres: `subscriptionStore`). */
export class MemorySubscriptionStore implements SubscriptionStore {
  readonly subscriptions: SubscriptionWithTarget[] = [];

  async triggeredWithTargets(sourceModelId: string, triggerEvent: string): Promise<SubscriptionWithTarget[]> {
    return this.subscriptions.filter((s) => s.source_model_id === sourceModelId && s.trigger_event === triggerEvent);
  }
}
