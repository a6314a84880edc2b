/** Shared pieces of the component schemas, and the error bodies. */
export const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const obj = { type: 'object' } as const;
export const ts = {
  created_at: { ...dateTime, description: 'When the resource was created' },
  updated_at: { ...dateTime, description: 'When the resource last changed' },
} as const;
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A schema with a description: the document says what each field means. */
export const described = <T extends object>(description: string, schema: T) => ({ ...schema, description });

export const IDENTIFIER_PATTERN = id.pattern;
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Path parameters stored as uuid columns: anything else must be refused before Postgres sees it (22P02). */
const UUID_PATH_PARAMETERS = new Set(['subscription_id', 'webhook_id', 'delivery_id', 'schedule_id']);

/** The schema of a path parameter: a UUID where the column is one, else the shared identifier pattern. */
export function pathParameterSchema(name: string): { type: 'string'; pattern: string; format?: 'uuid' } {
  return UUID_PATH_PARAMETERS.has(name)
    ? { type: 'string', format: 'uuid', pattern: UUID_PATTERN }
    : { type: 'string', pattern: IDENTIFIER_PATTERN };
}

export const commonSchemas: Record<string, object> = {
  ErrorResponse: {
    type: 'object',
    description: 'Every error except a blocked domain default assignment',
    required: ['success', 'message'],
    properties: {
      success: { type: 'boolean', const: false, description: 'Always false' },
      message: { type: 'string', description: 'What went wrong and, for a 400, which field broke which rule' },
    },
  },
  AssignBlockedErrorResponse: {
    type: 'object',
    description:
      "A domain default assignment refused because services that have not departed do not satisfy the target version's feature freeze",
    required: ['error', 'blocking_services'],
    properties: {
      error: { type: 'string', description: 'Why the assignment was blocked' },
      blocking_services: {
        type: 'array',
        description: 'One entry per (service, feature) that does not fit',
        items: {
          type: 'object',
          required: ['service_id', 'feature', 'value'],
          properties: {
            service_id: described('The service that blocks', { type: 'string' }),
            feature: described('The feature that does not fit the freeze', { type: 'string' }),
            value: { description: 'The stored value of that feature in provided_features (null when missing)' },
          },
        },
      },
    },
  },
  Health: {
    type: 'object',
    required: ['status', 'database', 'temporal', 'job_starts'],
    properties: {
      status: described('`ok` when the database and Temporal answer and jobs can start', { enum: ['ok', 'degraded'] }),
      database: described('`ok`, or `unavailable: <reason>`', { type: 'string' }),
      temporal: described('`ok`, or `unavailable: <reason>`', { type: 'string' }),
      job_starts: described(
        '`ok`, or `unavailable: <reason>` when a job could not start now (e.g. the namespace lacks the job search attributes)',
        { type: 'string' },
      ),
    },
  },
  Liveness: {
    type: 'object',
    required: ['status'],
    properties: { status: { const: 'ok' } },
  },
  Readiness: {
    type: 'object',
    required: ['status', 'serving'],
    properties: {
      status: { enum: ['ready', 'not_ready'] },
      serving: { enum: ['ok', 'draining'], description: '`draining` once a shutdown started; the dependencies are not probed then' },
      database: { type: 'string' },
      temporal: { type: 'string' },
      job_starts: {
        type: 'string',
        description: '`ok`, or why a job could not start now (e.g. the namespace lacks the job search attributes)',
      },
      migrations: { type: 'string', description: '`ok`, or the migrations not yet applied' },
      temporal_fairness: {
        type: 'string',
        description:
          "Whether the namespace's task queues dispatch tenants' tasks by fairness key, as a probe at start saw it: `on`, `off` (the service's fair shares alone protect tenants) or `unknown`, with what the probe saw (docs/fairness.md); it does not make the API not ready",
      },
    },
  },
};
