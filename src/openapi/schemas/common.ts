/** Shared pieces of the component schemas, and the error and paging bodies. */
export const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const obj = { type: 'object' } as const;
export const ts = { created_at: dateTime, updated_at: dateTime } as const;
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const IDENTIFIER_PATTERN = id.pattern;
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Path parameters stored as uuid columns: anything else must be refused before Postgres sees it (22P02). */
const UUID_PATH_PARAMETERS = new Set(['subscription_id']);

/** The schema of a path parameter: a UUID where the column is one, else the shared identifier pattern. */
export function pathParameterSchema(name: string): { type: 'string'; pattern: string; format?: 'uuid' } {
  return UUID_PATH_PARAMETERS.has(name) ? { type: 'string', format: 'uuid', pattern: UUID_PATTERN } : { type: 'string', pattern: IDENTIFIER_PATTERN };
}

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
    properties: { status: { enum: ['ok', 'degraded'] }, database: { type: 'string' }, temporal: { type: 'string' } },
  },
  Page: {
    type: 'object',
    required: ['items', 'next_cursor'],
    properties: { items: { type: 'array' }, next_cursor: { type: ['string', 'null'] } },
  },
};
