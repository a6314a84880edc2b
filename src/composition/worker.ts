import type { Client } from '@temporalio/client';
import type { ActivityInterceptorsFactory, Worker, WorkerOptions } from '@temporalio/worker';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ECSClient } from '@aws-sdk/client-ecs';
import type { JobGateway } from '../domain/ports';
import { startReconciler, type JobSlots } from '../domain/jobs';
import { startScheduleReconciler } from '../domain/schedules';
import type { Outbox } from '../domain/webhooks';
import { serveWorkerMetrics, type MetricsServer } from '../observability/worker-metrics-server';
import { jobGatewayFor } from '../temporal/job-gateway';
import { installTemporalRuntime } from '../temporal/runtime';
import { scheduleGatewayFor } from '../temporal/schedule-gateway';
import { webhookDispatcherFor } from '../temporal/webhook-dispatcher';
import { holdLeadership, WORKER_DUTIES_LOCK } from '../db/leader-lock';
import { builtinImplementations, type InProcessRegistry } from '../../activities/in-process/registry';
import { createJobWorker } from './job-worker';
import { slotReleaserFor } from './slot-releaser';
import type { Resources } from './resources';

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
  deps: Pick<Resources, 'knex' | 'config' | 'log' | 'metrics'> & {
    client: Client;
    gateway: JobGateway;
    slots: JobSlots;
    outbox: Outbox;
    poolName: string;
  },
) {
  const { knex, client, gateway, slots, outbox, config, log, metrics } = deps;
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
        const reconciler = startReconciler({ knex, gateway, log, metrics, outbox });
        stops.push(() => reconciler.stop());
        // Held jobs are pending rows waiting for a slot: whoever starts the orphaned pending rows starts these too.
        const releaser = slotReleaserFor({ knex, gateway, slots, log, metrics, config });
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
  /** The running-job slots of this worker's job core, for a releaser run beside it (slotReleaserFor). */
  slots: JobSlots;
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
    const { worker, core, connection } = await createJobWorker({
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
      const leadership = leaderOfDuties({
        knex,
        client,
        gateway,
        slots: core.slots,
        outbox: core.outbox,
        config,
        log,
        metrics,
        poolName: deps.poolName ?? 'mos-worker',
      });
      if (leadership) stops.push(() => leadership.stop());
    }
    if (!config.jobs.tokenKeys.length)
      log.warn('JOB_TOKEN_KEYS is not set: dispatches carry no job token (docs/authorization.md, "Job tokens")');

    let running: Promise<void> | undefined;
    return {
      worker,
      gateway,
      slots: core.slots,
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
