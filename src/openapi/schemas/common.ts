/** Shared pieces of the component schemas, and the error and paging bodies. */
export const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const obj = { type: 'object' } as const;
export const ts = { created_at: dateTime, updated_at: dateTime } as const;
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const IDENTIFIER_PATTERN = id.pattern;

export const commonSchemas: Record<string, object> = {
  Identifier: id,
  ErrorResponse: {
    type: 'object',
    required: ['success', 'message'],
    properties: { success: { type: 'boolean', const: false }, message: { type: 'string' } },
  },
  AssignBlockedErrorResponse: {
    type: 'object',
    required: ['error', 'blocking_services'],
    properties: {
      error: { type: 'string' },
      blocking_services: {
        type: 'array',
        items: {
          type: 'object',
          required: ['service_id', 'feature', 'value'],
          properties: { service_id: { type: 'string' }, feature: { type: 'string' }, value: {} },
        },
      },
    },
  },
  Health: {
    type: 'object',
    properties: {
      status: { enum: ['ok', 'degraded'] },
      database: { type: 'string' },
      temporal: { type: 'string' },
      job_starts: { type: 'string', description: '`ok`, or why a job could not start now (e.g. the namespace lacks the job search attributes)' },
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
      job_starts: { type: 'string', description: '`ok`, or why a job could not start now (e.g. the namespace lacks the job search attributes)' },
      migrations: { type: 'string', description: '`ok`, or the migrations not yet applied' },
    },
  },
  Page: {
    type: 'object',
    required: ['items', 'next_cursor'],
    properties: { items: { type: 'array' }, next_cursor: { type: ['string', 'null'] } },
  },
};
