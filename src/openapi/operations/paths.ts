import { JOB_STATUSES, JOB_TRIGGERS, JOB_TYPES } from '../../shapes';
import { UUID_PATTERN } from '../schemas/common';

/** The path prefixes and query parameters the route groups share. */
export const C = '/v2/clients/{client_id}';
export const D = `${C}/domains/{domain_id}`;
export const S = `${D}/service/{service_id}`;
export const M = '/v2/models/{model_id}';
export const V = `${M}/versions/{model_version}`;
export const W = `${C}/webhooks`;
export const PW = '/v2/webhooks';

export const statusFilter = (values: string[]) => ({ status: { type: 'string', enum: values } });

export const waitQuery = {
  wait: {
    type: 'integer',
    minimum: 0,
    maximum: 60,
    description: 'Seconds (at most 60) to hold the answer until the job is final; at the end of the time, the job as it is then',
  },
};

/** Filters of the job search (GET /v2/jobs) and of the tenant job list (which has its tenant in the path). */
export function jobSearchQuery(withClient: boolean): Record<string, object> {
  const text = (description: string) => ({ type: 'string', minLength: 1, maxLength: 200, description });
  return {
    ...(withClient ? { client_id: text('Jobs of this tenant') } : {}),
    domain_id: text('Jobs of this domain (of any tenant the caller sees, unless client_id narrows it)'),
    service_id: text('Jobs of this service'),
    model_id: text('Jobs of this model'),
    model_version: text('Jobs of this model version'),
    job_type: { type: 'string', enum: JOB_TYPES },
    status: { type: 'string', enum: JOB_STATUSES },
    trigger: { type: 'string', enum: JOB_TRIGGERS },
    source_job_id: text('Cascade jobs this job started'),
    root_job_id: text('Jobs of the cascade tree with this root'),
    rerun_of: text('Re-runs of this job'),
    schedule_id: text('Jobs this schedule started'),
    created_after: { type: 'string', format: 'date-time', description: 'Jobs created at or after this instant' },
    created_before: { type: 'string', format: 'date-time', description: 'Jobs created before this instant' },
    // The pattern too: the uuid format also admits a `urn:uuid:` prefix, which the uuid column refuses (a 500).
    assignment_id: {
      type: 'string',
      format: 'uuid',
      pattern: UUID_PATTERN,
      description: 'Only jobs that ran under this assignment revision',
    },
  };
}

/** `?dry_run=true` on a change that can block or cascade: every check runs, nothing is written (docs/change-safety.md). */
export const DRY_RUN_QUERY = {
  dry_run: {
    type: 'boolean',
    description:
      '`true`: run every check and answer with the status the change would have, plus `preview` (what it would do); nothing is written and no job starts',
  },
};
