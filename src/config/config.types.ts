import type { WebhookConfig } from '../webhooks/config';
import type { SecretKey } from '../secrets/secret-box';
import type { TemporalEndpoint } from '../temporal/connection-settings';

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

/** Defaults of the per-tenant and per-caller limits (README, "Configuration"); a rate of 0 turns that limit off. */
export interface LimitDefaults {
  jobsPerSecond: number;
  jobsBurst: number;
  /** 0: no cap. */
  maxRunningJobs: number;
  /** Requests per second of each caller that is not a platform caller, on every authenticated route. */
  requestsPerSecond: number;
  requestsBurst: number;
  /**
   * Started, unfinished jobs the workers run without a backlog, shared among busy tenants by weight (JOB_CAPACITY;
   * 0 or unset: no shares). Past it a tenant over its share waits `pending` (docs/fairness.md, "Jobs: fair shares").
   */
  jobCapacity?: number;
}

/** How long the API waits for a client's request (src/http/server.ts). */
export interface HttpLimits {
  /** From the connection (or the end of the previous request) to the last header line. */
  headersTimeoutSeconds: number;
  /** The whole request, headers and body: 30 s asks at least ~35 KB/s of a client sending the 1 MB maximum. */
  requestTimeoutSeconds: number;
  /** An idle kept-alive connection between requests. */
  keepAliveTimeoutSeconds: number;
}

/** Fair queuing of request handling per tenant and priority level (src/http/fair-queuing.ts). */
export interface FairQueuingSettings {
  /** Off (REQUEST_FAIR_QUEUING=off): every request is served at once, first come, first served. */
  enabled: boolean;
  /** Requests served at once per level. */
  seats: number;
  /** Requests one flow may have waiting per level. */
  queueLength: number;
  /** Longest a request waits for a seat. */
  queueWaitSeconds: number;
}

/** A key of the job-scoped completion tokens (src/auth/job-tokens.ts). */
export interface JobTokenKey {
  kid: string;
  secret: Uint8Array;
}
