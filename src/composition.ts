import { watchTemporalFairness, type TemporalFairnessWatch } from './temporal/fairness-probe';
import type { Server } from 'node:http';
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Client, WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, Worker, WorkerOptions } from '@temporalio/worker';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ECSClient } from '@aws-sdk/client-ecs';
import { ConfigError, type Config } from './config';
import { createKnex } from './db/knex';
import { poolStats } from './db/pool-stats';
import type { JobFinalListener } from './db/job-final-listener';
import type { JobGateway } from './domain/ports/job-gateway';
import { verifierFromConfig, type TokenVerifier } from './auth/verifier';
import { createApp, type AppDeps } from './app';
import { createHttpServer } from './http/server';
import { drainServer } from './http/drain';
import type { ServingState } from './http/serving-state';
import { ServiceMetrics } from './observability/metrics';
import type { Tracing } from './observability/tracing';
import { serveWorkerMetrics, type MetricsServer } from './observability/worker-metrics-server';
import { connectTemporalClient, endpointOf } from './temporal/connection';
import { clientMetricsInterceptor } from './temporal/client-metrics';
import { jobGatewayFor } from './temporal/job-gateway';
import { installTemporalRuntime } from './temporal/runtime';
import { createJobWorker } from './temporal/worker-factory';
import { startReconciler } from './temporal/reconciler';
import { slotReleaserFor } from './temporal/slot-releaser-factory';
import { startScheduleReconciler } from './temporal/schedule-reconciler';
import { scheduleGatewayFor } from './temporal/schedule-gateway';
import { webhookDispatcherFor } from './temporal/webhook-dispatcher';
import { holdLeadership, WORKER_DUTIES_LOCK } from './db/leader-lock';
import { builtinImplementations, type InProcessRegistry } from '../activities/in-process/registry';

/*
 * The one composition of the API and the worker. Every process (src/api-process.ts, src/worker-process.ts,
 * src/dev/runner.ts) and the test harness open their resources (or call openResources), then assemble the API and
 * the worker here; each keeps only what is its own (reading the environment, signals, test-only hooks).
 */

/** What a composition is built on: opened by the process (or the harness), closed by it after the parts. */
export interface Resources {
  config: Config;
  knex: Knex;
  /** The Temporal client, with the interceptors of `temporalClientInterceptors`. */
  temporal: Client;
  log: Logger;
  /** This process's metrics (the pool of `knex`; in one process running both, the API's and the worker's). */
  metrics: ServiceMetrics;
  /** Spans of the client, the app and the worker, started by the entry point before the modules it instruments. */
  tracing?: Tracing;
}

/** The interceptors of every Temporal client of the service: its calls' metrics, then the trace context. */
export function temporalClientInterceptors(metrics: ServiceMetrics, tracing?: Tracing): WorkflowClientInterceptor[] {
  return [clientMetricsInterceptor(metrics), ...(tracing?.clientInterceptors ?? [])];
}

/**
 * A process's resources from its config: the Postgres pool (DATABASE_POOL_MAX, named `poolName` in pg_stat_activity),
 * the metrics over it, and the Temporal client (waiting up to 30 s for the server). `close` closes them, the pool last.
 */
export async function openResources(options: {
  config: Config;
  log: Logger;
  poolName: string;
  tracing?: Tracing;
}): Promise<Resources & { close(): Promise<void> }> {
  const { config, log, tracing } = options;
  if (!config.databaseUrl || !config.temporal.address) throw new ConfigError('DATABASE_URL and TEMPORAL_ADDRESS are required');
  const knex = createKnex(config.databaseUrl, { max: config.databasePoolMax, name: options.poolName });
  const metrics = new ServiceMetrics({ pool: poolStats(knex) });
  let temporal: Client;
  try {
    temporal = await connectTemporalClient(
      endpointOf(config.temporal),
      config.temporal.namespace,
      30000,
      temporalClientInterceptors(metrics, tracing),
      (message) => log.warn(message),
    );
  } catch (err) {
    await knex.destroy();
    throw err;
  }
  return {
    config,
    knex,
    temporal,
    log,
    metrics,
    tracing,
    async close() {
      await temporal.connection.close();
      await knex.destroy();
    },
  };
}

export interface ApiOptions {
  /** How bearer tokens are checked; as AUTH_* configure it when omitted. */
  verify?: TokenVerifier;
  /** The job gateway; one over `temporal` as the config says when omitted. */
  gateway?: JobGateway;
  /** Names of the in-process implementations the worker has registered; the built-in ones when omitted. */
  inProcessNames?: string[];
  /** The operator console: where its build is, and a dev admin token to offer (`npm start`, tests). */
  console?: AppDeps['console'];
  /** Middleware run before all of the app's own (the tests' contract check), outermost first. */
  outerMiddleware?: Koa.Middleware[];
  /**
   * How `close` stops the HTTP server: drained (readiness 503 for SHUTDOWN_DELAY_SECONDS, then in-flight requests get
   * SHUTDOWN_TIMEOUT_SECONDS; src/http/drain.ts), as the production API does; closed at once when false.
   */
  drain?: boolean;
}

export interface ApiParts {
  app: Koa;
  /** The app's router, so tests can walk every declared route. */
  router: Router;
  gateway: JobGateway;
  serving: ServingState;
  /** Wakes `?wait=` reads; tests ask it whether a read is held. */
  finals: Pick<JobFinalListener, 'held'>;
  /** What the probe of Temporal's task-queue fairness saw (TEMPORAL_FAIRNESS_PROBE=off: none). */
  temporalFairness?: TemporalFairnessWatch;
  /** Serves the app (with the HTTP limits of the config) on this port; resolves once it listens. Once. */
  listen(port: number, host?: string): Promise<Server>;
  /**
   * The API's shutdown, in order: the job starts under way settle and held `?wait=` reads answer the job as it is now
   * (so they do not hold up the drain), then the server stops (drained or closed). The resources are the caller's.
   */
  close(): Promise<void>;
}

/** The API: the app with its services, the job gateway and the token verifier, and its HTTP server. */
export function composeApi(deps: Resources & ApiOptions): ApiParts {
  const { config, knex, temporal, log, metrics } = deps;
  const gateway = deps.gateway ?? jobGatewayFor(temporal, config, metrics);
  const fairness = config.temporal.fairnessProbe
    ? watchTemporalFairness({ client: temporal, namespace: config.temporal.namespace, log, metrics })
    : undefined;
  const built = createApp({
    config,
    knex,
    temporal,
    gateway,
    verify: deps.verify ?? verifierFromConfig(config.auth, log),
    log,
    metrics,
    inProcessNames: deps.inProcessNames ?? Object.keys(builtinImplementations),
    console: deps.console,
    temporalFairness: fairness?.describe,
  });
  const { app, serving } = built;
  app.middleware.unshift(...(deps.outerMiddleware ?? []));
  let server: Server | undefined;
  return {
    app,
    router: built.router,
    gateway,
    serving,
    finals: built.finals,
    temporalFairness: fairness,
    async listen(port, host) {
      if (server) throw new Error('the API is already listening');
      const listening = createHttpServer(app, config.http);
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
      return listening;
    },
    async close() {
      await built.close();
      await fairness?.stop();
      if (!server) return;
      const s = server;
      if (deps.drain) {
        const { delaySeconds, timeoutSeconds } = config.shutdown;
        await drainServer(s, serving, { delayMs: delaySeconds * 1000, timeoutMs: timeoutSeconds * 1000, log });
      } else {
        await new Promise((r) => s.close(r));
      }
    },
  };
}

export interface WorkerCompositionOptions {
  /** The in-process handler implementations; the built-in ones when omitted. */
  inProcess?: InProcessRegistry;
  /** Handler clients (tests point them at stand-ins); the SDK's defaults when omitted. */
  lambda?: LambdaClient;
  ecs?: ECSClient;
  /** A prebuilt workflow bundle (tests build one per run); bundled from workflows/ when omitted. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Level of the SDK's own log; set once per process. */
  sdkLogLevel?: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** More activity interceptors (fault tests hold an activity at a chosen instant). */
  activityInterceptors?: ActivityInterceptorsFactory[];
  /** The job gateway of the worker's activities and loops; one over `temporal` as the config says when omitted. */
  gateway?: JobGateway;
  /**
   * The loops beside the worker: the pending-job reconciler, the releaser of held jobs, the schedule reconciler (as
   * JOB_RECONCILER and SCHEDULE_RECONCILE_SECONDS say) and the webhook dispatcher (WEBHOOK_DISPATCHER). On unless
   * false: the test harness runs workers of their own task queues over one shared database, where one worker's loops
   * would take the other tests' rows.
   */
  loops?: boolean;
  /** Serve the worker's /metrics (with the SDK's) on WORKER_METRICS_PORT when it is set; on unless false. */
  serveMetrics?: boolean;
  /** Name of the process's pool; the worker-duties lock's connection is named after it (`<name>-duties`). */
  poolName?: string;
}

/**
 * The loops that must run once per deployment: the pending-job reconciler, the releaser of held jobs, the schedule
 * reconciler (as JOB_RECONCILER and SCHEDULE_RECONCILE_SECONDS say) and the webhook dispatcher (WEBHOOK_DISPATCHER).
 * Every worker replica, with the same environment, asks for one Postgres advisory lock; the one that holds it runs
 * them, and another takes them over when it dies (docs/deploy.md, "Duties of one worker"). Undefined when the
 * switches leave this worker none.
 */
function leaderOfDuties(
  deps: Pick<Resources, 'knex' | 'config' | 'log' | 'metrics'> & { client: Client; gateway: JobGateway; poolName: string },
) {
  const { knex, client, gateway, config, log, metrics } = deps;
  const reconcile = config.jobs.reconcilerEnabled;
  if (!reconcile && !config.webhooks.dispatcherEnabled) return undefined;
  return holdLeadership({
    knex,
    lockKey: WORKER_DUTIES_LOCK,
    name: `${deps.poolName}-duties`,
    log,
    async lead() {
      const stops: (() => Promise<void>)[] = [];
      if (reconcile) {
        const reconciler = startReconciler({ knex, gateway, log, metrics });
        stops.push(() => reconciler.stop());
        // Held jobs are pending rows waiting for a slot: whoever starts the orphaned pending rows starts these too.
        const releaser = slotReleaserFor({ knex, gateway, log, metrics, config });
        stops.push(() => releaser.stop());
        const everySeconds = config.schedules.reconcileSeconds;
        if (everySeconds > 0) {
          const scheduleReconciler = startScheduleReconciler({ knex, log, everySeconds, gateway: scheduleGatewayFor(client, config) });
          stops.push(() => scheduleReconciler.stop());
        }
      }
      const dispatcher = webhookDispatcherFor({ knex, client, config, log });
      if (dispatcher) stops.push(() => dispatcher.stop());
      return async () => {
        await Promise.all(stops.map((stop) => stop()));
      };
    },
  });
}

export interface WorkerParts {
  worker: Worker;
  gateway: JobGateway;
  /** The worker's /metrics, when served. */
  metricsServer?: MetricsServer;
  /** Runs the worker until it shuts down (the SDK does on SIGINT/SIGTERM; `close` does too). Call once. */
  run(): Promise<void>;
  /**
   * The worker's shutdown, in order: the loops stop, the worker stops polling and gives running activities
   * WORKER_SHUTDOWN_GRACE_SECONDS, its connection closes, then its metrics server. A failure of the run is its
   * caller's (`run()`'s promise), not `close`'s. The resources are the caller's.
   */
  close(): Promise<void>;
}

/** The job worker with its activities and registry, and the loops that run beside it. */
export async function composeWorker(deps: Resources & WorkerCompositionOptions): Promise<WorkerParts> {
  const { config, knex, temporal: client, log, metrics, tracing } = deps;
  const { port: metricsPort, sdkPort } = config.workerMetrics;
  const serveMetrics = deps.serveMetrics !== false && Boolean(metricsPort);
  // Before the worker's first (native) connection: the SDK reads its telemetry options once, when its Runtime is installed.
  installTemporalRuntime({
    logLevel: deps.sdkLogLevel,
    prometheusAddress: serveMetrics && sdkPort ? `127.0.0.1:${sdkPort}` : undefined,
  });
  const gateway = deps.gateway ?? jobGatewayFor(client, config, metrics);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0)) await stop();
  };
  let metricsServer: MetricsServer | undefined;
  try {
    metricsServer = serveMetrics
      ? await serveWorkerMetrics({ port: metricsPort!, metrics, sdkUrl: sdkPort ? `http://127.0.0.1:${sdkPort}/metrics` : undefined, log })
      : undefined;
    const { worker, connection } = await createJobWorker({
      config,
      knex,
      client,
      log,
      gateway,
      inProcess: deps.inProcess ?? builtinImplementations,
      lambda: deps.lambda,
      ecs: deps.ecs,
      workflowBundle: deps.workflowBundle,
      sdkLogLevel: deps.sdkLogLevel,
      metrics,
      tracing,
      activityInterceptors: deps.activityInterceptors,
    });
    if (deps.loops !== false) {
      const leadership = leaderOfDuties({ knex, client, gateway, config, log, metrics, poolName: deps.poolName ?? 'mos-worker' });
      if (leadership) stops.push(() => leadership.stop());
    }
    if (!config.jobs.tokenKeys.length)
      log.warn('JOB_TOKEN_KEYS is not set: dispatches carry no job token (docs/authorization.md, "Job tokens")');

    let running: Promise<void> | undefined;
    return {
      worker,
      gateway,
      metricsServer,
      run() {
        if (running) throw new Error('the worker is already running');
        running = worker.run();
        return running;
      },
      async close() {
        await stopAll();
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running?.catch(() => undefined);
        await connection.close();
        await metricsServer?.close();
      },
    };
  } catch (err) {
    await stopAll();
    await metricsServer?.close();
    throw err;
  }
}
