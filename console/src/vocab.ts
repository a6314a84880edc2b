import type { Schemas } from '../../client';

export type JobStatus = Schemas['ModelJob']['status'];
export type ServiceStatus = Schemas['Service']['status'];

// Records keyed by the schema's own unions, so a status added to the API fails the console's type-check until listed.
const JOB_STATUS = { pending: 1, running: 2, success: 3, failure: 4, timed_out: 5, cancelled: 6 } satisfies Record<JobStatus, number>;
const SERVICE_STATUS = { in_progress: 1, available: 2, failed: 3, not_found: 4 } satisfies Record<ServiceStatus, number>;
const JOB_TYPE = { inference: 1, training: 2 } satisfies Record<Schemas['ModelJob']['job_type'], number>;
const JOB_TRIGGER = {
  service_init: 1,
  service_update: 2,
  direct: 3,
  assignment: 4,
  cascade: 5,
  rerun: 6,
  schedule: 7,
  shadow: 8,
} satisfies Record<Schemas['ModelJob']['trigger'], number>;

export const JOB_STATUSES = Object.keys(JOB_STATUS) as JobStatus[];
export const SERVICE_STATUSES = Object.keys(SERVICE_STATUS) as ServiceStatus[];
export const JOB_TYPES = Object.keys(JOB_TYPE) as Schemas['ModelJob']['job_type'][];
export const JOB_TRIGGERS = Object.keys(JOB_TRIGGER) as Schemas['ModelJob']['trigger'][];

export function isFinal(status: JobStatus): boolean {
  return status !== 'pending' && status !== 'running';
}
