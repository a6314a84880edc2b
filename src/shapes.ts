import type { Schemas } from './openapi/types';

/**
 * Shapes of the JSON values the service stores and passes between layers: the job and event vocabularies, feature
 * definitions and values, handlers, limits. A leaf module, so repositories, application services, activities and
 * routes share one definition; where the document defines the shape, it is the document's type (`Schemas[...]`).
 */

/** The job vocabulary, defined once: the repositories' types, the document's enums and the metrics' series. */
export const JOB_STATUSES = ['pending', 'running', 'success', 'failure', 'timed_out', 'cancelled'] as const;
export const JOB_TYPES = ['inference', 'training'] as const;
export const JOB_TRIGGERS = ['service_init', 'service_update', 'direct', 'assignment', 'cascade', 'rerun', 'schedule', 'shadow'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type JobType = (typeof JOB_TYPES)[number];
export type JobTrigger = (typeof JOB_TRIGGERS)[number];

/** The webhook events an endpoint may ask for (docs/webhooks.md lists their payloads). */
export const EVENT_TYPES = [
  'job.succeeded',
  'job.failed',
  'job.timed_out',
  'job.cancelled',
  'service.available',
  'service.failed',
  'assignment.changed',
  'assignment.rolled_back',
  'version.status_changed',
  'version.deleted',
  'model.deleted',
  'alias.moved',
  'subscription.stale',
  'schedule.changed',
  'schedule.run_skipped',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type FeatureDefinition = Schemas['FeatureDefinition'];

export type FeatureValues = Record<string, unknown>;

/** Where a job runs: a Lambda function, an ECS task, an implementation registered in the worker, or a model server. */
export type Handler = Schemas['Handler'];

/**
 * A model server the service POSTs the job to, signed with the model's handler secret. `sync`: the response is the
 * completion; `async`: a 2xx accepts the job, which is completed later through the completion route.
 */
export type HttpHandler = Schemas['HttpHandler'];

export type Handlers = Schemas['Handlers'];

/** A tenant's limits as they apply: the configured defaults, each replaced by the tenant's override when it has one. */
export type TenantLimits = Schemas['TenantLimits'];

/**
 * What a platform administrator may override per tenant (`clients.limits`); a field left out keeps the default. Numbers
 * only: null ("no cap") is what the defaults may say, not an override.
 */
export type LimitsOverride = { [K in keyof TenantLimits]?: NonNullable<TenantLimits[K]> };

/** When a schedule fires (stored in `schedules.spec`): cron expressions and/or intervals, in a time zone, within start/end. */
export interface ScheduleSpec {
  cron?: string[];
  intervals?: { every_seconds: number; offset_seconds?: number }[];
  /** IANA name; UTC when absent. */
  time_zone?: string;
  start_at?: string;
  end_at?: string;
  /** Each fire is delayed by a random amount up to this. */
  jitter_seconds?: number;
}

export type OverlapPolicy = 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'allow_all';

/** What a schedule does when a fire meets a running one or an outage (stored in `schedules.policies`). */
export interface SchedulePolicies {
  overlap: OverlapPolicy;
  catchup_window_seconds: number;
  pause_on_failure: boolean;
}
