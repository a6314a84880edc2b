/**
 * The environment variables the configuration reads itself, as one JSON Schema (2020-12): each variable's type,
 * bounds and default. Values arrive as strings and ajv coerces them; an unset or empty variable takes its default,
 * except where `emptyIsValue` says an empty string means something. Variables whose default is another setting's value
 * have none here (src/config/load-config.ts fills them). The TEMPORAL_* connection, WEBHOOK_* and SECRET_KEYS settings
 * are read by their own modules.
 */

const integer = <M extends number>(minimum: M) => ({ type: 'integer', minimum }) as const;
const count = <M extends number, D extends number>(minimum: M, fallback: D) => ({ ...integer(minimum), default: fallback }) as const;
const port = { type: 'integer', minimum: 1, maximum: 65535 } as const;
const rate = <D extends number>(fallback: D) => ({ type: 'number', minimum: 0, default: fallback }) as const;
const onOff = <D extends 'on' | 'off'>(fallback: D) => ({ enum: ['on', 'off'], default: fallback }) as const;
const url = { type: 'string', format: 'url' } as const;
const text = { type: 'string' } as const;
const textOr = <D extends string>(fallback: D) => ({ type: 'string', default: fallback }) as const;

export const SETTINGS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    PORT: count(0, 8080),
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    DATABASE_URL: url,
    DATABASE_POOL_MAX: count(1, 10),
    TEMPORAL_ADDRESS: text,
    TEMPORAL_REGISTER_SEARCH_ATTRIBUTES: { enum: ['on', 'off'] },
    TEMPORAL_NAMESPACE: textOr('default'),
    TEMPORAL_TASK_QUEUE: textOr('model-jobs'),
    TEMPORAL_UI_URL: url,
    TEMPORAL_FAIRNESS_PROBE: onOff('on'),
    AUTH_ISSUER: text,
    AUTH_DEV_ISSUER: onOff('off'),
    MACHINE_CLIENTS: text,
    AUTH_JWKS_URL: url,
    AUTH_AUDIENCE: text,
    // Empty: scope names carry no prefix.
    AUTH_SCOPE_PREFIX: { ...textOr('platform/'), emptyIsValue: true },
    AUTH_GROUPS_CLAIM: textOr('idp:groups'),
    AUTH_CLOCK_SKEW_SECONDS: count(0, 5),
    AUTH_JWKS_TIMEOUT_SECONDS: count(1, 5),
    AUTH_JWKS_REFRESH_SECONDS: count(1, 300),
    AUTH_JWKS_MAX_STALENESS_SECONDS: count(1, 6 * 3600),
    AUTH_JWKS_MIN_REFETCH_SECONDS: count(0, 1),
    JOB_COMPLETION_DEADLINE_SECONDS: count(1, 3600),
    MAX_CASCADE_DEPTH: count(0, 5),
    // Anything but `off` runs it, as it always has.
    JOB_RECONCILER: textOr('on'),
    COMPLETION_WAIT_SECONDS: count(1, 10),
    JOB_FAIRNESS: onOff('on'),
    JOB_TOKEN_KEYS: text,
    TENANT_JOBS_PER_SECOND: rate(50),
    TENANT_JOBS_BURST: count(1, 200),
    TENANT_MAX_RUNNING_JOBS: count(0, 0),
    CALLER_REQUESTS_PER_SECOND: rate(200),
    CALLER_REQUESTS_BURST: count(1, 400),
    JOB_CAPACITY: integer(0),
    METRICS_PER_TENANT: onOff('off'),
    PUBLIC_BASE_URL: url,
    CORS_ALLOWED_ORIGINS: text,
    CONSOLE_OIDC_ISSUER: url,
    CONSOLE_OIDC_CLIENT_ID: text,
    CONSOLE_OIDC_SCOPE: textOr('openid'),
    SHUTDOWN_DELAY_SECONDS: count(0, 0),
    SHUTDOWN_TIMEOUT_SECONDS: count(0, 25),
    WORKER_SHUTDOWN_GRACE_SECONDS: count(0, 20),
    WORKER_MAX_CACHED_WORKFLOWS: count(2, 500),
    WORKER_WORKFLOW_TASK_SLOTS: integer(2),
    WORKER_ACTIVITY_SLOTS: integer(1),
    WORKER_METRICS_PORT: port,
    WORKER_SDK_METRICS_PORT: port,
    HTTP_HEADERS_TIMEOUT_SECONDS: count(1, 10),
    HTTP_REQUEST_TIMEOUT_SECONDS: count(1, 30),
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: count(1, 5),
    REQUEST_FAIR_QUEUING: onOff('on'),
    REQUEST_SEATS: integer(1),
    REQUEST_QUEUE_LENGTH: count(1, 128),
    REQUEST_QUEUE_WAIT_SECONDS: count(1, 10),
    SCHEDULES_MAX_PER_TENANT: count(0, 100),
    SCHEDULE_MIN_INTERVAL_SECONDS: count(1, 60),
    SCHEDULE_MAX_BACKFILL_FIRES: count(1, 100),
    SCHEDULE_RECONCILE_SECONDS: count(0, 60),
  },
  dependentRequired: { CONSOLE_OIDC_ISSUER: ['CONSOLE_OIDC_CLIENT_ID'] },
} as const;

type Properties = typeof SETTINGS_SCHEMA.properties;
type ValueOf<S> = S extends { type: 'integer' | 'number' } ? number : S extends { enum: readonly (infer E)[] } ? E : string;

/** The settings as the schema validated them: a variable with a default always has a value. */
export type Settings = {
  [K in keyof Properties]: ValueOf<Properties[K]> | (Properties[K] extends { default: unknown } ? never : undefined);
};

/** The schema of one variable, as the messages about it read it. */
export interface SettingSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: readonly string[];
  format?: string;
  emptyIsValue?: boolean;
}
