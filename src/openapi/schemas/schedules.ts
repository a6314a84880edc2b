import { id, dateTime, described, obj } from './common';
import { JOB_TYPES } from '../../shapes';

const nullable = (type: string, description: string, extra: object = {}) => ({ type: [type, 'null'], description, ...extra });
const overlap = {
  enum: ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'allow_all'],
};
const seconds = (description: string, minimum: number, maximum: number) => described(description, { type: 'integer', minimum, maximum });

const spec = {
  type: 'object',
  additionalProperties: false,
  description:
    'When it fires: the union of the cron expressions (in `time_zone`) and the intervals, within start_at and end_at. At least one cron expression or interval',
  properties: {
    cron: {
      type: 'array',
      maxItems: 10,
      description:
        'Five-field cron expressions (minute hour day-of-month month day-of-week); day of month AND day of week must match when both are set',
      items: { type: 'string', minLength: 9, maxLength: 100 },
    },
    intervals: {
      type: 'array',
      maxItems: 10,
      description: 'Every `every_seconds` from the Unix epoch, shifted by `offset_seconds`',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['every_seconds'],
        properties: {
          every_seconds: seconds('The period; at least the shortest interval allowed (SCHEDULE_MIN_INTERVAL_SECONDS)', 1, 31_622_400),
          offset_seconds: seconds('Shift from the epoch grid, less than every_seconds (default 0)', 0, 31_622_399),
        },
      },
    },
    time_zone: described('IANA time zone of the cron expressions (default UTC)', { type: 'string', minLength: 1, maxLength: 64 }),
    start_at: described('No fire before this instant', dateTime),
    end_at: described('No fire after this instant; after start_at', dateTime),
    jitter_seconds: seconds('Each fire runs up to this much later, at random (its nominal time stays)', 0, 86_400),
  },
};

const policies = {
  type: 'object',
  additionalProperties: false,
  description: 'What a fire does when the previous one still runs, after an outage, and after a failure',
  properties: {
    overlap: described(
      'A fire while the previous fire’s job runs: `skip` it (default), `buffer_one` / `buffer_all` to run after, `cancel_other` (cancels the running job), `allow_all`',
      overlap,
    ),
    catchup_window_seconds: seconds('Fires missed during a Temporal outage are taken if at most this late (default 3600)', 10, 31_622_400),
    pause_on_failure: described('Pause the schedule when a fire’s job ends failed, timed out or cancelled (default false)', {
      type: 'boolean',
    }),
  },
};

const common = {
  spec,
  policies,
  description: described('A note for people', { type: 'string', maxLength: 500 }),
  metadata: described('Stored on each job it starts', obj),
  paused: described('Create it paused (default false)', { type: 'boolean' }),
  note: described('Why it is paused, or any note on its state', { type: 'string', maxLength: 500 }),
};

const runs = {
  type: 'array',
  description: 'The newest runs (at most 10), newest first: each fire is decided once per nominal time',
  items: {
    type: 'object',
    required: ['nominal_time', 'outcome', 'job_id', 'job_status', 'reason', 'fire_workflow_id'],
    properties: {
      nominal_time: described('The fire’s nominal time (its job id is derived from the schedule and it)', dateTime),
      outcome: described('`started` a job, or `skipped` (the rule that refused it in `reason`)', { enum: ['started', 'skipped'] }),
      job_id: nullable('string', 'The job it started'),
      job_status: nullable('string', 'That job’s status now'),
      reason: nullable('string', 'Why it started nothing (a suspended tenant, an inactive version, a departed service, ...)'),
      fire_workflow_id: nullable('string', 'The fire workflow in Temporal: `schedule-<schedule_id>-<nominal time>`'),
    },
  },
};

const firstRun = {
  type: 'object',
  required: ['would_start', 'skipped_reason', 'job'],
  properties: {
    would_start: described('Whether a fire now would start a job', { type: 'boolean' }),
    skipped_reason: nullable('string', 'Why it would start nothing'),
    job: {
      type: ['object', 'null'],
      description: 'The job it would start (trigger `schedule`)',
      required: ['job_type', 'trigger', 'model_id', 'model_version', 'client_id', 'domain_id', 'service_id', 'input'],
      properties: {
        job_type: described('What the handler would be asked to do', { enum: JOB_TYPES }),
        trigger: described('Always `schedule`', { enum: ['schedule'] }),
        model_id: described('The model', id),
        model_version: described('The version', id),
        client_id: nullable('string', 'The tenant'),
        domain_id: nullable('string', 'The domain'),
        service_id: nullable('string', 'The service'),
        input: nullable('object', 'What the handler would receive'),
      },
    },
  },
};

/** Recurring jobs on Temporal Schedules (docs/schedules.md). */
export const scheduleSchemas: Record<string, object> = {
  CreateServiceScheduleRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['domain_id', 'service_id', 'spec'],
    description:
      "Re-scores a service of the tenant with its current features on a calendar (the service's inference, as an update that re-runs it)",
    properties: { domain_id: described('The domain of the service', id), service_id: described('The service', id), ...common },
  },
  CreateVersionScheduleRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['model_id', 'model_version', 'spec'],
    description: 'Runs a model version on a calendar with a stored input, as POST .../train or .../infer would',
    properties: {
      model_id: described('The model', id),
      model_version: described('The version', id),
      input: described("The handler's input; checked against the model's input_schema at each fire", obj),
      ...common,
    },
  },
  UpdateScheduleRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    description: 'Replaces the fields given; the target stays (delete and create for another). `input` only for schedules of a version',
    properties: {
      spec,
      policies,
      input: described("A version schedule's input", obj),
      metadata: common.metadata,
      description: common.description,
    },
  },
  ScheduleStateRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { note: described('Why: shown in the schedule’s state and in the Temporal UI', { type: 'string', maxLength: 500 }) },
  },
  ScheduleTriggerRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      overlap: described(
        'For this fire; default: the schedule’s own `policies.overlap`, so a trigger under `skip` starts nothing while a job of the schedule runs. A fire under `allow_all` runs regardless, and then neither the overlap policy nor `pause_on_failure` sees its job',
        overlap,
      ),
    },
  },
  ScheduleBackfillRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['start_at', 'end_at'],
    properties: {
      start_at: described('The range’s start (inclusive)', dateTime),
      end_at: described('The range’s end (exclusive); not in the future', dateTime),
      overlap: described(
        'For these fires; default `buffer_all`: each runs once the schedule’s running job (if any) and the fire before it have ended, so the overlap policy and `pause_on_failure` see every one. Under `allow_all` they all run at once, and neither sees their jobs',
        overlap,
      ),
    },
  },
  ScheduleFires: {
    type: 'object',
    description: 'Fires handed to Temporal; their runs appear in recent_runs (and their jobs under ?schedule_id=)',
    required: ['schedule_id', 'kind', 'overlap', 'nominal_times'],
    properties: {
      schedule_id: described('The schedule', { type: 'string' }),
      kind: described('A trigger (one fire now) or a backfill', { enum: ['trigger', 'backfill'] }),
      overlap: described('The overlap policy of these fires', overlap),
      nominal_times: {
        type: ['array', 'null'],
        description:
          'For a backfill: the nominal times of its fires (a repeat decides none again); null for a trigger, whose time Temporal takes',
        items: dateTime,
      },
    },
  },
  Schedule: {
    type: 'object',
    description: 'A recurring job: one Temporal Schedule, `schedule-<schedule_id>`, whose every fire starts one job',
    required: [
      'schedule_id',
      'action',
      'client_id',
      'target',
      'input',
      'metadata',
      'description',
      'spec',
      'policies',
      'state',
      'revision',
      'next_fire_times',
      'recent_runs',
      'temporal_schedule_id',
      'temporal_url',
      'created_by',
      'updated_by',
      'created_at',
      'updated_at',
    ],
    properties: {
      schedule_id: described('Identifier (UUIDv7)', { type: 'string' }),
      action: described(
        'What each fire starts: `training` or `inference` of a model version, or `service_inference` (re-scoring a service)',
        {
          enum: ['training', 'inference', 'service_inference'],
        },
      ),
      client_id: nullable('string', 'The tenant of a service schedule; null for schedules of a model version'),
      target: {
        type: 'object',
        required: ['model_id', 'model_version', 'domain_id', 'service_id'],
        description: 'The model version, or the domain and service, it runs',
        properties: {
          model_id: nullable('string', 'The model'),
          model_version: nullable('string', 'The version'),
          domain_id: nullable('string', 'The domain'),
          service_id: nullable('string', 'The service'),
        },
      },
      input: nullable('object', 'The stored input (schedules of a version)'),
      metadata: described('Stored on each job it starts', obj),
      description: described('A note for people', { type: 'string' }),
      spec: {
        ...spec,
        required: ['cron', 'intervals', 'time_zone', 'start_at', 'end_at', 'jitter_seconds'],
        properties: {
          ...spec.properties,
          start_at: nullable('string', 'No fire before this instant', { format: 'date-time' }),
          end_at: nullable('string', 'No fire after this instant', { format: 'date-time' }),
        },
      },
      policies: { ...policies, required: ['overlap', 'catchup_window_seconds', 'pause_on_failure'] },
      state: {
        type: 'object',
        required: ['paused', 'note'],
        description: 'As Temporal holds it (pause-on-failure pauses it there)',
        properties: {
          paused: described('Whether fires are held', { type: 'boolean' }),
          note: described('The note of the last pause or unpause', { type: 'string' }),
        },
      },
      revision: described('Counts the changes of its definition', { type: 'integer', minimum: 1 }),
      next_fire_times: {
        type: 'array',
        description: 'The next 5 nominal fire times, as Temporal has computed them',
        items: dateTime,
      },
      recent_runs: runs,
      temporal_schedule_id: described('The Temporal Schedule: `schedule-<schedule_id>`', { type: 'string' }),
      temporal_url: nullable('string', 'The schedule in the Temporal Web UI, when TEMPORAL_UI_URL is known'),
      created_by: nullable('string', 'Who created it'),
      updated_by: nullable('string', 'Who changed it last'),
      created_at: described('When it was created', dateTime),
      updated_at: described('When it last changed', dateTime),
      preview: {
        type: 'object',
        description: 'Only on `?dry_run=true`: what it would do; nothing was written in Postgres or Temporal',
        required: ['dry_run', 'next_fire_times', 'first_run'],
        properties: {
          dry_run: { type: 'boolean', const: true, description: 'Always true' },
          next_fire_times: { type: 'array', description: 'The next 5 nominal fire times', items: dateTime },
          first_run: firstRun,
        },
      },
    },
  },
};
