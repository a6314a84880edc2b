import { readFileSync, existsSync } from 'node:fs';
import { webhookConfig, WebhookConfig } from './webhooks/config';
import { commaSeparated, ConfigError, integer, decimal, type Env } from './env-values';
import type { LimitDefaults } from './domain/common';
import type { HttpLimits } from './http/server';
import type { FairQueuingSettings } from './http/fair-queuing';
import { parseSecretKeys } from './secrets/secret-keys';
import type { SecretKey } from './secrets/secret-box';
import { parseJobTokenKeys, type JobTokenKey } from './auth/job-tokens';
import { isTemporalCloud, temporalEndpointSettings, type TemporalEndpoint } from './temporal/connection-settings';
import { DEV_ISSUER, DEV_PLATFORM_CLIENT } from './dev/dev-auth';

export type AccessClass = 'platform' | 'tenant';
export interface MachineClientConfig {
  access: AccessClass;
  tenants: string[];
}

export interface AuthConfig {
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  scopePrefix: string;
  groupsClaim: string;
  machineClients: Record<string, MachineClientConfig>;
  /** Tolerance on exp, nbf and iat. */
  clockSkewSeconds: number;
  /** How the identity provider's key set is fetched and kept (src/auth/key-store.ts). */
  jwks: {
    timeoutSeconds: number;
    refreshSeconds: number;
    maxStalenessSeconds: number;
    minRefetchSeconds: number;
  };
}

export interface Config {
  port: number;
  databaseUrl?: string;
  /** Most Postgres connections this process's pool opens (the final-status listener of the API adds one). */
  databasePoolMax: number;
  /** The Temporal frontend: its address, TLS and API key (src/temporal/connection-settings.ts), namespace and task queue. */
  temporal: Omit<TemporalEndpoint, 'address'> & {
    address?: string;
    /** Temporal Cloud (by its address): search attributes are added with `tcld`, never through the operator service. */
    cloud: boolean;
    /**
     * Whether the worker and `npm run migrate` register missing job search attributes (TEMPORAL_REGISTER_SEARCH_ATTRIBUTES;
     * off on Temporal Cloud): off, they only check, and readiness names what is missing and the command that adds it.
     */
    registerSearchAttributes: boolean;
    namespace: string;
    taskQueue: string;
    uiUrl?: string;
    /** Whether the API probes, at start, if the namespace's task queues dispatch by fairness key (TEMPORAL_FAIRNESS_PROBE). */
    fairnessProbe: boolean;
  };
  auth: AuthConfig;
  jobs: {
    /** How long a dispatched job may wait for its completion report before it fails as timed out. */
    completionDeadlineSeconds: number;
    /** Longest chain of cascade jobs one completion may start (source job has depth 0). */
    maxCascadeDepth: number;
    /** Longest the completion route waits for the job's workflow to take the report and answer, before a 503. */
    completionWaitSeconds: number;
    /** Whether this worker process runs the reconciler of pending job rows (JOB_RECONCILER=off: another one does). */
    reconcilerEnabled: boolean;
    /**
     * Whether job workflows carry their tenant as Temporal fairness key (and their priority), and the API's starts
     * take turns by tenant (JOB_FAIRNESS=off: neither, as before; docs/fairness.md).
     */
    fairness: boolean;
    /**
     * Keys of the job-scoped completion tokens (JOB_TOKEN_KEYS, the same in the API and the worker): the first signs,
     * all verify. None: dispatches carry no token and handlers complete with an identity-provider token alone.
     */
    tokenKeys: JobTokenKey[];
  };
  /** Defaults of the per-tenant and per-caller limits; a tenant's override replaces them (docs/fairness.md). */
  limits: LimitDefaults;
  /** Metric series labelled by tenant id rather than by tenant class (METRICS_PER_TENANT=on; unbounded with tenants). */
  metricsPerTenant: boolean;
  /** Base URL handlers use to reach the completion route; defaults to http://localhost:PORT. */
  publicBaseUrl: string;
  /** Browser origins allowed to call the API (CORS); empty: CORS off. `*` allows any origin. */
  corsAllowedOrigins: string[];
  /** The console's OpenID Connect sign-in (Authorization Code + PKCE), when CONSOLE_OIDC_ISSUER is set. */
  consoleOidc?: { issuer: string; clientId: string; scope: string };
  logLevel: string;
  shutdown: {
    /** API: how long it stays up not-ready, still serving, before it stops accepting (load balancers notice). */
    delaySeconds: number;
    /** API: how long in-flight requests get to finish once it stops accepting; then connections are cut. */
    timeoutSeconds: number;
    /** Worker: how long running activities get to finish after polling stops; then they are cancelled and retried elsewhere. */
    workerGraceSeconds: number;
  };
  /** Worker: most job workflows kept in its sticky cache; evicted ones are replayed from history when they next wake. */
  workerMaxCachedWorkflows: number;
  /**
   * Worker: workflow tasks and activities it takes from Temporal at once (the SDK's defaults, 40 and 100, when unset).
   * What it has taken it runs side by side on its cores; what it has not waits in Temporal's task queue, where
   * fairness orders it (docs/fairness.md, "The worker's slots").
   */
  workerSlots: { workflowTasks?: number; activities?: number };
  workerMetrics: {
    /** Port of the worker's /metrics (its own series and the Temporal SDK's); none when unset. */
    port?: number;
    /** Port the Temporal SDK's Prometheus exporter binds on 127.0.0.1; the worker's /metrics includes it. */
    sdkPort?: number;
  };
  /** Outbound webhooks: target safety, retry schedule, dispatch (src/webhooks/config.ts). */
  webhooks: WebhookConfig;
  /** Key-encryption keys of the secrets stored sealed (src/secrets/secret-box.ts), newest first; none when unset. */
  secretKeys: SecretKey[];
  /** How long the API waits for a client's request (src/http/server.ts; docs/authorization.md, "Slow clients"). */
  http: HttpLimits;
  /** Fair queuing of request handling per tenant and priority level (docs/fairness.md, "Requests"). */
  requests: FairQueuingSettings;
  /** Schedules (docs/schedules.md): per-tenant limits, and the worker's reconciler of rows and Temporal Schedules. */
  schedules: {
    maxPerTenant: number;
    minIntervalSeconds: number;
    maxBackfillFires: number;
    /** Seconds between reconciler passes; 0: this worker runs none. */
    reconcileSeconds: number;
  };
}

export { ConfigError };

function optionalPort(env: Env, name: string): number | undefined {
  if (env[name] === undefined || env[name] === '') return undefined;
  const port = integer(env, name, 0, 1);
  if (port > 65535) throw new ConfigError(`${name} must be a port (1-65535), got "${env[name]}"`);
  return port;
}

function optionalInteger(env: Env, name: string, min: number): number | undefined {
  return env[name] === undefined || env[name] === '' ? undefined : integer(env, name, 0, min);
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'on' && raw !== 'off') throw new ConfigError(`${name} must be on or off, got "${raw}"`);
  return raw === 'on';
}

function consoleOidc(env: Env): Config['consoleOidc'] {
  const issuer = url(env, 'CONSOLE_OIDC_ISSUER');
  if (!issuer) return undefined;
  if (!env.CONSOLE_OIDC_CLIENT_ID) throw new ConfigError('CONSOLE_OIDC_CLIENT_ID must be set with CONSOLE_OIDC_ISSUER');
  return { issuer: issuer.replace(/\/$/, ''), clientId: env.CONSOLE_OIDC_CLIENT_ID, scope: env.CONSOLE_OIDC_SCOPE || 'openid' };
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  return raw;
}

/** MACHINE_CLIENTS holds JSON, or the path of a JSON file: { "<client_id>": { "access": "platform"|"tenant", "tenants": [...] } }. */
export function parseMachineClients(raw: string | undefined): Record<string, MachineClientConfig> {
  if (!raw || raw.trim() === '') return {};
  let text = raw.trim();
  if (!text.startsWith('{')) {
    if (!existsSync(text)) throw new ConfigError(`MACHINE_CLIENTS is neither JSON nor the path of a file: "${raw}"`);
    text = readFileSync(text, 'utf8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`MACHINE_CLIENTS is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError('MACHINE_CLIENTS must be a JSON object');
  const clients: Record<string, MachineClientConfig> = {};
  for (const [id, entry] of Object.entries(parsed as Record<string, { access?: unknown; tenants?: unknown } | null>)) {
    const access = entry?.access;
    if (access !== 'platform' && access !== 'tenant') {
      throw new ConfigError(`MACHINE_CLIENTS["${id}"].access must be "platform" or "tenant"`);
    }
    const tenants: unknown = entry?.tenants ?? [];
    if (!Array.isArray(tenants) || tenants.some((t: unknown) => typeof t !== 'string')) {
      throw new ConfigError(`MACHINE_CLIENTS["${id}"].tenants must be an array of strings`);
    }
    clients[id] = { access, tenants: tenants as string[] };
  }
  return clients;
}

/** The request timeouts; the headers' deadline falls within the whole request's, as Node requires. */
function httpLimits(env: Env): HttpLimits {
  const limits = {
    headersTimeoutSeconds: integer(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 10, 1),
    requestTimeoutSeconds: integer(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 30, 1),
    keepAliveTimeoutSeconds: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 5, 1),
  };
  if (limits.headersTimeoutSeconds > limits.requestTimeoutSeconds) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  return limits;
}

/** CORS_ALLOWED_ORIGINS: comma-separated origins (`https://app.example.com`), or `*`. */
export function parseAllowedOrigins(raw: string | undefined): string[] {
  const origins = commaSeparated(raw);
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || parsed.origin !== origin)
      throw new ConfigError(
        `CORS_ALLOWED_ORIGINS must list origins like https://app.example.com (scheme, host, optional port; no path), got "${origin}"`,
      );
  }
  return origins;
}

/**
 * The auth settings, refusing the dev issuer (whose signing key anyone with the evaluation install holds) unless
 * AUTH_DEV_ISSUER=on says this is an evaluation (docker compose's evaluation profile); then its platform client
 * is known too, as under `npm start`.
 */
function authConfig(env: Env): AuthConfig {
  const issuer = env.AUTH_ISSUER || undefined;
  const devIssuer = onOff(env, 'AUTH_DEV_ISSUER', false);
  if (issuer === DEV_ISSUER && !devIssuer)
    throw new ConfigError(
      `AUTH_ISSUER is the dev issuer (${DEV_ISSUER}), whose signing key is not a secret: set AUTH_JWKS_URL and AUTH_ISSUER to your identity provider, or run the evaluation (docs/deploy.md, "Compose")`,
    );
  const machineClients = parseMachineClients(env.MACHINE_CLIENTS);
  if (devIssuer && issuer === DEV_ISSUER) machineClients[DEV_PLATFORM_CLIENT] ??= { access: 'platform', tenants: [] };
  return {
    jwksUrl: url(env, 'AUTH_JWKS_URL'),
    issuer,
    audience: env.AUTH_AUDIENCE || undefined,
    scopePrefix: env.AUTH_SCOPE_PREFIX ?? 'platform/',
    groupsClaim: env.AUTH_GROUPS_CLAIM || 'idp:groups',
    machineClients,
    clockSkewSeconds: integer(env, 'AUTH_CLOCK_SKEW_SECONDS', 5, 0),
    jwks: {
      timeoutSeconds: integer(env, 'AUTH_JWKS_TIMEOUT_SECONDS', 5),
      refreshSeconds: integer(env, 'AUTH_JWKS_REFRESH_SECONDS', 300),
      maxStalenessSeconds: integer(env, 'AUTH_JWKS_MAX_STALENESS_SECONDS', 6 * 3600),
      minRefetchSeconds: integer(env, 'AUTH_JWKS_MIN_REFETCH_SECONDS', 1, 0),
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
  const port = integer(env, 'PORT', 8080, 0);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const workerMetricsPort = optionalPort(env, 'WORKER_METRICS_PORT');
  return {
    port,
    databaseUrl: url(env, 'DATABASE_URL'),
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1),
    temporal: {
      address: env.TEMPORAL_ADDRESS || undefined,
      ...temporalEndpointSettings(env),
      cloud: isTemporalCloud(env.TEMPORAL_ADDRESS),
      registerSearchAttributes: onOff(env, 'TEMPORAL_REGISTER_SEARCH_ATTRIBUTES', !isTemporalCloud(env.TEMPORAL_ADDRESS)),
      namespace: env.TEMPORAL_NAMESPACE || 'default',
      taskQueue: env.TEMPORAL_TASK_QUEUE || 'model-jobs',
      uiUrl: url(env, 'TEMPORAL_UI_URL'),
      fairnessProbe: onOff(env, 'TEMPORAL_FAIRNESS_PROBE', true),
    },
    auth: authConfig(env),
    jobs: {
      completionDeadlineSeconds: integer(env, 'JOB_COMPLETION_DEADLINE_SECONDS', 3600),
      maxCascadeDepth: integer(env, 'MAX_CASCADE_DEPTH', 5, 0),
      reconcilerEnabled: env.JOB_RECONCILER !== 'off',
      completionWaitSeconds: integer(env, 'COMPLETION_WAIT_SECONDS', 10),
      fairness: onOff(env, 'JOB_FAIRNESS', true),
      tokenKeys: wrapConfigError(() => parseJobTokenKeys(env.JOB_TOKEN_KEYS)),
    },
    limits: {
      jobsPerSecond: decimal(env, 'TENANT_JOBS_PER_SECOND', 50),
      jobsBurst: integer(env, 'TENANT_JOBS_BURST', 200),
      maxRunningJobs: integer(env, 'TENANT_MAX_RUNNING_JOBS', 0, 0),
      requestsPerSecond: decimal(env, 'CALLER_REQUESTS_PER_SECOND', 200),
      requestsBurst: integer(env, 'CALLER_REQUESTS_BURST', 400),
      // The worker's workflow-task slots (the SDK's 40 when unset): a job past them would wait in Temporal's queue.
      jobCapacity: integer(env, 'JOB_CAPACITY', optionalInteger(env, 'WORKER_WORKFLOW_TASK_SLOTS', 2) ?? 40, 0),
    },
    metricsPerTenant: onOff(env, 'METRICS_PER_TENANT', false),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`,
    corsAllowedOrigins: parseAllowedOrigins(env.CORS_ALLOWED_ORIGINS),
    consoleOidc: consoleOidc(env),
    logLevel,
    shutdown: {
      delaySeconds: integer(env, 'SHUTDOWN_DELAY_SECONDS', 0, 0),
      timeoutSeconds: integer(env, 'SHUTDOWN_TIMEOUT_SECONDS', 25, 0),
      workerGraceSeconds: integer(env, 'WORKER_SHUTDOWN_GRACE_SECONDS', 20, 0),
    },
    workerMaxCachedWorkflows: integer(env, 'WORKER_MAX_CACHED_WORKFLOWS', 500, 2),
    workerSlots: {
      workflowTasks: optionalInteger(env, 'WORKER_WORKFLOW_TASK_SLOTS', 2),
      activities: optionalInteger(env, 'WORKER_ACTIVITY_SLOTS', 1),
    },
    http: httpLimits(env),
    requests: {
      enabled: onOff(env, 'REQUEST_FAIR_QUEUING', true),
      // As many requests at once per level as the pool has connections: more would only queue, first come, in the pool.
      seats: integer(env, 'REQUEST_SEATS', integer(env, 'DATABASE_POOL_MAX', 10, 1), 1),
      queueLength: integer(env, 'REQUEST_QUEUE_LENGTH', 128, 1),
      queueWaitSeconds: integer(env, 'REQUEST_QUEUE_WAIT_SECONDS', 10, 1),
    },
    workerMetrics: {
      port: workerMetricsPort,
      sdkPort: optionalPort(env, 'WORKER_SDK_METRICS_PORT') ?? (workerMetricsPort ? workerMetricsPort + 1 : undefined),
    },
    webhooks: wrapConfigError(() => webhookConfig(env)),
    secretKeys: parseSecretKeys(env.SECRET_KEYS),
    schedules: {
      maxPerTenant: integer(env, 'SCHEDULES_MAX_PER_TENANT', 100, 0),
      minIntervalSeconds: integer(env, 'SCHEDULE_MIN_INTERVAL_SECONDS', 60, 1),
      maxBackfillFires: integer(env, 'SCHEDULE_MAX_BACKFILL_FIRES', 100),
      reconcileSeconds: integer(env, 'SCHEDULE_RECONCILE_SECONDS', 60, 0),
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
