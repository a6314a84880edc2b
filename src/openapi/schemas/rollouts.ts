import { id, dateTime, described, ref } from './common';

const rate = (description: string) => described(description, { type: ['number', 'null'], minimum: 0, maximum: 1 });
const count = (description: string) => described(description, { type: 'integer', minimum: 0 });
const ms = { type: ['number', 'null'], minimum: 0 };
const jobPath = (description: string) => described(description, { type: 'string' });

/** Progressive delivery: canary selection, comparison report, promotion and rollback (docs/progressive-delivery.md). */
export const rolloutSchemas: Record<string, object> = {
  CanaryServices: {
    type: 'object',
    description:
      "The services of the domain that run a canary's candidate instead of the primary: the first `selected` of the services that have not departed in canary order (by the md5 of the service id, so a larger share keeps the services of a smaller one), less those whose features do not fit the candidate's freeze",
    required: ['assignment_key', 'primary_key', 'model_id', 'model_version', 'share', 'services_total', 'selected', 'services', 'blocked'],
    properties: {
      assignment_key: described('The canary', id),
      primary_key: described('The key of the primary it challenges', id),
      model_id: described('The candidate model', id),
      model_version: described('The candidate version', id),
      share: described('The share (0–100) of the services it takes', { type: 'number', minimum: 0, maximum: 100 }),
      services_total: count('Services that have not departed'),
      selected: count('How many of them the share takes (rounded up), blocked ones included'),
      services: described('The services that run the candidate, in canary order', { type: 'array', items: { type: 'string' } }),
      blocked: {
        type: 'array',
        description: "Services of the share that stay on the primary: one entry per feature that does not fit the candidate's freeze",
        items: {
          type: 'object',
          required: ['service_id', 'feature', 'value', 'reason'],
          properties: {
            service_id: described('The service', { type: 'string' }),
            feature: described('The feature that does not fit', { type: 'string' }),
            value: { description: 'Its stored value in provided_features (null when missing)' },
            reason: described('Why it does not fit', { type: 'string' }),
          },
        },
      },
    },
  },
  RolloutSide: {
    type: 'object',
    description: "One side of a rollout report: the primary's jobs or the candidate's",
    required: ['jobs', 'pending', 'running', 'succeeded', 'failed', 'cancelled', 'finished', 'success_rate', 'failure_rate', 'latency_ms'],
    properties: {
      jobs: count('Every job of the side'),
      pending: count('Not started yet'),
      running: count('Dispatched, not final'),
      succeeded: count('`success`'),
      failed: count('`failure` and `timed_out`'),
      cancelled: count('`cancelled` (in neither rate)'),
      finished: count('succeeded + failed: the denominator of the rates'),
      success_rate: rate('succeeded / finished; null before any job finished'),
      failure_rate: rate('failed / finished; null before any job finished'),
      latency_ms: {
        type: 'object',
        description: 'Dispatch (`started_at`) to completion (`completed_at`) of the succeeded and failed jobs',
        required: ['p50', 'p95'],
        properties: { p50: { ...ms, description: 'Median, ms' }, p95: { ...ms, description: '95th percentile, ms' } },
      },
    },
  },
  RolloutAgreement: {
    type: 'object',
    description:
      "A shadow's outputs against its primary's on the same input, over the pairs in which both succeeded: exact JSON equality, and per numeric field (dotted path) the share within the tolerance",
    required: ['pairs', 'compared', 'exact_matches', 'exact_match_rate', 'fields', 'disagreements', 'disagreements_truncated'],
    properties: {
      pairs: count('Shadow jobs with their primary job'),
      compared: count('Pairs in which both succeeded'),
      exact_matches: count('Compared pairs with equal outputs'),
      exact_match_rate: rate('exact_matches / compared'),
      fields: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'tolerance', 'compared', 'within_tolerance', 'share'],
          properties: {
            field: described('Dotted path of a numeric output field', { type: 'string' }),
            tolerance: described('`settings.tolerances[field]`, else `settings.tolerance`, else 0', { type: 'number' }),
            compared: count('Compared pairs in which either side has it'),
            within_tolerance: count('Of those, pairs in which both have it within the tolerance'),
            share: rate('within_tolerance / compared'),
          },
        },
      },
      disagreements: {
        type: 'array',
        description: 'Compared pairs whose outputs differ (at most 100), with links to both jobs',
        items: {
          type: 'object',
          required: ['primary_job_id', 'shadow_job_id', 'primary_job', 'shadow_job', 'fields'],
          properties: {
            primary_job_id: described('The primary job', { type: 'string' }),
            shadow_job_id: described('Its shadow', { type: 'string' }),
            primary_job: jobPath('GET path of the primary job'),
            shadow_job: jobPath('GET path of the shadow job'),
            fields: described('Numeric fields out of tolerance or on one side only', { type: 'array', items: { type: 'string' } }),
          },
        },
      },
      disagreements_truncated: described('More pairs disagree than are listed', { type: 'boolean' }),
    },
  },
  RolloutReport: {
    type: 'object',
    description:
      "A canary's or shadow's comparison with its primary over its rollout (the revisions under the key since it came into force, share changes included); available while it runs and after it left force",
    required: [
      'assignment_key',
      'role',
      'status',
      'status_reason',
      'primary_key',
      'model_id',
      'model_version',
      'revisions',
      'since',
      'until',
      'primary',
      'candidate',
    ],
    properties: {
      assignment_key: described('The canary or shadow', id),
      role: described('Its role', { enum: ['canary', 'shadow'] }),
      status: described('`active` while the rollout runs', { enum: ['active', 'archived'] }),
      status_reason: described('Why it left force (promoted, rolled back, the guardrail)', { type: ['string', 'null'] }),
      primary_key: described('The key of the primary', id),
      model_id: described('The candidate model', id),
      model_version: described('The candidate version', id),
      revisions: described('The assignment revisions of the rollout, newest first', {
        type: 'array',
        items: { type: 'string', format: 'uuid' },
      }),
      since: described('When the rollout came into force', dateTime),
      until: described('When it left force; null while it runs', { type: ['string', 'null'], format: 'date-time' }),
      primary: described(
        "Canary: the primary's jobs in the domain over the same time; shadow: the primary jobs its shadows ran beside",
        ref('RolloutSide'),
      ),
      candidate: described("The candidate's jobs (a canary's, or the shadow jobs)", ref('RolloutSide')),
      agreement: ref('RolloutAgreement'),
    },
  },
  Promotion: {
    type: 'object',
    description:
      'A promotion: the candidate as the new primary revision and the archived canary or shadow, written in one transaction (on `?dry_run=true`, what would be written)',
    required: ['primary', 'archived', 'services_moved', 'services_already_on_candidate'],
    properties: {
      dry_run: described('Present (true) on a dry run: nothing was written', { type: 'boolean', const: true }),
      primary: ref('Assignment'),
      archived: ref('Assignment'),
      services_moved: described('Services that move from the primary version to the candidate', {
        type: 'array',
        items: { type: 'string' },
      }),
      services_already_on_candidate: described("Services that ran the candidate already (the canary's share)", {
        type: 'array',
        items: { type: 'string' },
      }),
    },
  },
  RollbackRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { reason: described('Why; kept in `status_reason` and the event', { type: 'string', maxLength: 1000 }) },
  },
};
