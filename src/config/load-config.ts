import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import { webhookConfig } from '../webhooks/config';
import { ConfigError, type Env } from '../env-values';
import { parseSecretKeys } from '../secrets/secret-keys';
import { isTemporalCloud, temporalEndpointSettings } from '../temporal/connection-settings';
import { SETTINGS_SCHEMA, type SettingSchema, type Settings } from './settings.schema';
import { parseAllowedOrigins, parseJobTokenKeys, parseMachineClients } from './list-settings';
import type { AuthConfig, Config, HttpLimits } from './config.types';

/** The issuer of `npm start`'s dev tokens, whose signing key anyone with the evaluation install holds. */
export const DEV_ISSUER = 'urn:model-orchestration:dev-issuer';
/** The platform client `npm start` and the evaluation know without MACHINE_CLIENTS. */
export const DEV_PLATFORM_CLIENT = 'dev-platform';

const PROPERTIES: Record<string, SettingSchema> = SETTINGS_SCHEMA.properties;

/** What a variable must be, worded from its schema, with the value it had. */
function refusal(name: string, raw: string | undefined): string {
  const schema = PROPERTIES[name];
  const got = `got "${raw}"`;
  if (schema.maximum !== undefined) return `${name} must be a port (${schema.minimum}-${schema.maximum}), ${got}`;
  if (schema.type === 'integer') return `${name} must be an integer >= ${schema.minimum}, ${got}`;
  if (schema.type === 'number') return `${name} must be a number >= ${schema.minimum}, ${got}`;
  if (schema.format === 'url') return `${name} must be a URL, ${got}`;
  if (schema.enum?.join() === 'on,off') return `${name} must be on or off, ${got}`;
  if (schema.enum) return `${name} must be one of ${schema.enum.join(', ')}; ${got}`;
  return `${name} is malformed, ${got}`;
}

function problem(error: ErrorObject, env: Env): string {
  if (error.keyword === 'dependentRequired') {
    const { property, missingProperty } = error.params as { property: string; missingProperty: string };
    return `${missingProperty} must be set with ${property}`;
  }
  const name = error.instancePath.slice(1);
  return refusal(name, env[name]);
}

/**
 * The variables of the schema read from `env`, checked, coerced and defaulted; throws ConfigError naming every
 * variable at fault. An empty variable counts as unset unless its schema says the empty string is a value.
 */
function readSettings(env: Env): Settings {
  const ajv = new Ajv2020({ strict: true, allErrors: true, coerceTypes: true, useDefaults: true });
  ajv.addVocabulary(['emptyIsValue']);
  ajv.addFormat('url', (value: string) => URL.canParse(value));
  const validate = ajv.compile<Settings>(SETTINGS_SCHEMA);
  const input: Record<string, string> = {};
  for (const [name, schema] of Object.entries(PROPERTIES)) {
    const raw = env[name];
    if (raw !== undefined && (raw !== '' || schema.emptyIsValue)) input[name] = raw;
  }
  if (!validate(input)) throw new ConfigError((validate.errors ?? []).map((error) => problem(error, env)).join('; '));
  return input;
}

/** The request timeouts; the headers' deadline falls within the whole request's, as Node requires. */
function httpLimits(settings: Settings): HttpLimits {
  if (settings.HTTP_HEADERS_TIMEOUT_SECONDS > settings.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  return {
    headersTimeoutSeconds: settings.HTTP_HEADERS_TIMEOUT_SECONDS,
    requestTimeoutSeconds: settings.HTTP_REQUEST_TIMEOUT_SECONDS,
    keepAliveTimeoutSeconds: settings.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS,
  };
}

/**
 * The auth settings, refusing the dev issuer (whose signing key anyone with the evaluation install holds) unless
 * AUTH_DEV_ISSUER=on says this is an evaluation (docker compose's evaluation profile); then its platform client
 * is known too, as under `npm start`.
 */
function authConfig(settings: Settings): AuthConfig {
  const issuer = settings.AUTH_ISSUER;
  const devIssuer = settings.AUTH_DEV_ISSUER === 'on';
  if (issuer === DEV_ISSUER && !devIssuer)
    throw new ConfigError(
      `AUTH_ISSUER is the dev issuer (${DEV_ISSUER}), whose signing key is not a secret: set AUTH_JWKS_URL and AUTH_ISSUER to your identity provider, or run the evaluation (docs/deploy.md, "Compose")`,
    );
  const machineClients = parseMachineClients(settings.MACHINE_CLIENTS);
  if (devIssuer && issuer === DEV_ISSUER) machineClients[DEV_PLATFORM_CLIENT] ??= { access: 'platform', tenants: [] };
  return {
    jwksUrl: settings.AUTH_JWKS_URL,
    issuer,
    audience: settings.AUTH_AUDIENCE,
    scopePrefix: settings.AUTH_SCOPE_PREFIX,
    groupsClaim: settings.AUTH_GROUPS_CLAIM,
    machineClients,
    clockSkewSeconds: settings.AUTH_CLOCK_SKEW_SECONDS,
    jwks: {
      timeoutSeconds: settings.AUTH_JWKS_TIMEOUT_SECONDS,
      refreshSeconds: settings.AUTH_JWKS_REFRESH_SECONDS,
      maxStalenessSeconds: settings.AUTH_JWKS_MAX_STALENESS_SECONDS,
      minRefetchSeconds: settings.AUTH_JWKS_MIN_REFETCH_SECONDS,
    },
  };
}

function wrapConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** Reads and validates the environment; throws ConfigError naming the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const s = readSettings(env);
  const cloud = isTemporalCloud(s.TEMPORAL_ADDRESS);
  return {
    port: s.PORT,
    databaseUrl: s.DATABASE_URL,
    databasePoolMax: s.DATABASE_POOL_MAX,
    temporal: {
      address: s.TEMPORAL_ADDRESS,
      ...temporalEndpointSettings(env),
      cloud,
      registerSearchAttributes: (s.TEMPORAL_REGISTER_SEARCH_ATTRIBUTES ?? (cloud ? 'off' : 'on')) === 'on',
      namespace: s.TEMPORAL_NAMESPACE,
      taskQueue: s.TEMPORAL_TASK_QUEUE,
      uiUrl: s.TEMPORAL_UI_URL,
      fairnessProbe: s.TEMPORAL_FAIRNESS_PROBE === 'on',
    },
    auth: authConfig(s),
    jobs: {
      completionDeadlineSeconds: s.JOB_COMPLETION_DEADLINE_SECONDS,
      maxCascadeDepth: s.MAX_CASCADE_DEPTH,
      reconcilerEnabled: s.JOB_RECONCILER !== 'off',
      completionWaitSeconds: s.COMPLETION_WAIT_SECONDS,
      fairness: s.JOB_FAIRNESS === 'on',
      tokenKeys: parseJobTokenKeys(s.JOB_TOKEN_KEYS),
    },
    limits: {
      jobsPerSecond: s.TENANT_JOBS_PER_SECOND,
      jobsBurst: s.TENANT_JOBS_BURST,
      maxRunningJobs: s.TENANT_MAX_RUNNING_JOBS,
      requestsPerSecond: s.CALLER_REQUESTS_PER_SECOND,
      requestsBurst: s.CALLER_REQUESTS_BURST,
      // The worker's workflow-task slots (the SDK's 40 when unset): a job past them would wait in Temporal's queue.
      jobCapacity: s.JOB_CAPACITY ?? s.WORKER_WORKFLOW_TASK_SLOTS ?? 40,
    },
    metricsPerTenant: s.METRICS_PER_TENANT === 'on',
    publicBaseUrl: s.PUBLIC_BASE_URL ?? `http://localhost:${s.PORT}`,
    corsAllowedOrigins: parseAllowedOrigins(s.CORS_ALLOWED_ORIGINS),
    consoleOidc: s.CONSOLE_OIDC_ISSUER
      ? { issuer: s.CONSOLE_OIDC_ISSUER.replace(/\/$/, ''), clientId: s.CONSOLE_OIDC_CLIENT_ID!, scope: s.CONSOLE_OIDC_SCOPE }
      : undefined,
    logLevel: s.LOG_LEVEL,
    shutdown: {
      delaySeconds: s.SHUTDOWN_DELAY_SECONDS,
      timeoutSeconds: s.SHUTDOWN_TIMEOUT_SECONDS,
      workerGraceSeconds: s.WORKER_SHUTDOWN_GRACE_SECONDS,
    },
    workerMaxCachedWorkflows: s.WORKER_MAX_CACHED_WORKFLOWS,
    workerSlots: { workflowTasks: s.WORKER_WORKFLOW_TASK_SLOTS, activities: s.WORKER_ACTIVITY_SLOTS },
    http: httpLimits(s),
    requests: {
      enabled: s.REQUEST_FAIR_QUEUING === 'on',
      // As many requests at once per level as the pool has connections: more would only queue, first come, in the pool.
      seats: s.REQUEST_SEATS ?? s.DATABASE_POOL_MAX,
      queueLength: s.REQUEST_QUEUE_LENGTH,
      queueWaitSeconds: s.REQUEST_QUEUE_WAIT_SECONDS,
    },
    workerMetrics: {
      port: s.WORKER_METRICS_PORT,
      sdkPort: s.WORKER_SDK_METRICS_PORT ?? (s.WORKER_METRICS_PORT ? s.WORKER_METRICS_PORT + 1 : undefined),
    },
    webhooks: wrapConfigError(() => webhookConfig(env)),
    secretKeys: parseSecretKeys(env.SECRET_KEYS),
    schedules: {
      maxPerTenant: s.SCHEDULES_MAX_PER_TENANT,
      minIntervalSeconds: s.SCHEDULE_MIN_INTERVAL_SECONDS,
      maxBackfillFires: s.SCHEDULE_MAX_BACKFILL_FIRES,
      reconcileSeconds: s.SCHEDULE_RECONCILE_SECONDS,
    },
  };
}

/** The API and worker in production need these; the dev runner fills them itself. */
export function requireProductionSettings(config: Config): void {
  const missing: string[] = [];
  if (!config.databaseUrl) missing.push('DATABASE_URL');
  if (!config.temporal.address) missing.push('TEMPORAL_ADDRESS');
  if (!config.auth.jwksUrl) missing.push('AUTH_JWKS_URL');
  if (!config.auth.issuer) missing.push('AUTH_ISSUER');
  if (!config.secretKeys.length) missing.push('SECRET_KEYS');
  if (missing.length) throw new ConfigError(`missing required settings: ${missing.join(', ')}`);
}
