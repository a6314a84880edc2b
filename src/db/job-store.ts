import type { JobStore } from '../domain/ports';
import type { Db } from './types';
import { findJob } from './jobs.repository';
import { confirmOutcome } from './unconfirmed-outcomes.repository';

/** The Postgres job store of the job rules (src/domain/ports/job-stores.port.ts `JobStore`) on this connection or transaction. */
export function jobStore(db: Db): JobStore {
  return {
    findJob: (jobId: string) => findJob(db, jobId),
    confirmOutcome: (jobId: string) => confirmOutcome(db, jobId),
  };
}
