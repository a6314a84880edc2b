import { Worker, WorkerOptions, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { ECSClient } from '@aws-sdk/client-ecs';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Client } from '@temporalio/client';
import { createActivities } from '../../activities';
import { createWebhookActivities } from '../../activities/webhooks';
import { createScheduleActivities } from '../../activities/schedules';
import type { InProcessRegistry } from '../../activities/in-process/registry';
import { createScheduleFires } from '../domain/schedules';
import { createJobsService, createJobRuns } from '../domain/jobs';
import { createServicesService } from '../domain/services';
import type { JobGateway } from '../domain/ports';
import { jobGatewayFor } from '../temporal/job-gateway';
import { ensureSearchAttributes, SearchAttributesMissingError } from '../temporal/search-attributes';
import { installTemporalRuntime } from '../temporal/runtime';
import { connectNative, endpointOf, followRotations } from '../temporal/connection';
import { TemporalCredentials } from '../temporal/credentials';
import type { Config } from '../config';
import { targetPolicy } from '../webhooks/target-policy';
import { createJobTokens } from '../auth/job-tokens';
import type { ServiceMetrics } from '../observability/metrics';
import type { Tracing } from '../observability/tracing';
import { createJobCore, type JobCore } from './job-core';

/**
 * A dispatch is one AWS call that answers in well under a second; a stalled endpoint must fail the call (and the
 * activity attempt be retried) well inside the dispatch activity's 15 s start-to-close timeout.
 */
const AWS_CALL_LIMITS = { requestHandler: { connectionTimeout: 3000, requestTimeout: 10000 } };

export interface WorkerDeps {
  config: Config;
  knex: Knex;
  client: Client;
  log: Logger;
  inProcess: InProcessRegistry;
  /** The job gateway of the activities; one over `client` as the config says when omitted. */
  gateway?: JobGateway;
  lambda?: LambdaClient;
  ecs?: ECSClient;
  /** A prebuilt workflow bundle (tests build one per run); bundled from workflows/ when omitted. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Level of the SDK's own log (worker and activity failures); set once per process. */
  sdkLogLevel?: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** The worker's metrics: dispatches, outcomes, cascades, cascade starts. */
  metrics?: ServiceMetrics;
  /** Activity and workflow spans; a prebuilt `workflowBundle` must then contain the tracing workflow interceptors. */
  tracing?: Tracing;
  /** More activity interceptors, after the tracing ones (fault tests hold an activity at a chosen instant). */
  activityInterceptors?: ActivityInterceptorsFactory[];
}

/** The job worker: workflows/ plus the activities closing over the given dependencies. */
export async function createJobWorker(
  deps: WorkerDeps,
): Promise<{ worker: Worker; core: JobCore; connection: { close(): Promise<void> } }> {
  installTemporalRuntime({ logLevel: deps.sdkLogLevel });
  const { config } = deps;
  const credentials = new TemporalCredentials(endpointOf(config.temporal), (message) => deps.log.warn(message));
  const connection = await connectNative(credentials);
  let worker: Worker;
  let core: JobCore;
  try {
    await registerSearchAttributes(connection, deps);
    const gateway = deps.gateway ?? jobGatewayFor(deps.client, config, deps.metrics);
    core = createJobCore({ config, knex: deps.knex, gateway, log: deps.log, metrics: deps.metrics });
    worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      activities: workerActivities(deps, core, gateway),
      ...workerTuning(config),
      ...deps.tracing?.workerOptions,
      interceptors: {
        ...deps.tracing?.workerOptions.interceptors,
        activity: [...(deps.tracing?.workerOptions.interceptors.activity ?? []), ...(deps.activityInterceptors ?? [])],
      },
      ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../../workflows') }),
    });
  } catch (err) {
    await connection.close();
    throw err;
  }
  return { worker, core, connection: { close: followRotations(worker, credentials, deps.log) } };
}

/**
 * Workflows write the job search attributes; starting them in a namespace without them fails every job. A namespace
 * this service may not administer is logged, not thrown: the worker runs (the jobs already started need it), the API's
 * readiness answers 503 naming the missing attributes and the command, and no job is staged until they exist.
 */
async function registerSearchAttributes(connection: Parameters<typeof ensureSearchAttributes>[0], deps: WorkerDeps) {
  const { namespace, registerSearchAttributes: register, cloud } = deps.config.temporal;
  try {
    const { registered } = await ensureSearchAttributes(connection, namespace, { register, cloud });
    if (registered.length) deps.log.info({ namespace, registered }, 'registered the job search attributes');
  } catch (err) {
    if (!(err instanceof SearchAttributesMissingError)) throw err;
    deps.log.error({ missing: err.missing.map((k) => k.name) }, err.message);
  }
}

/** The slots and the sticky cache the settings ask for; the SDK's defaults where they are unset. */
function workerTuning(config: Config): Partial<WorkerOptions> {
  return {
    // On SIGTERM (handled by the SDK) polling stops at once; running activities get this long, then they are
    // cancelled and Temporal retries them on another worker. Workflow tasks are short and finish.
    shutdownGraceTime: `${config.shutdown.workerGraceSeconds} seconds`,
    // Jobs wait up to JOB_COMPLETION_DEADLINE_SECONDS for their report; each cached one holds its workflow context.
    // The SDK's default scales with the heap, so memory grew with the number of waiting jobs; this bounds it, and an
    // evicted job is replayed from its history when its completion arrives (bench/README.md, "Memory").
    maxCachedWorkflows: config.workerMaxCachedWorkflows,
    ...(config.workerSlots.workflowTasks ? { maxConcurrentWorkflowTaskExecutions: config.workerSlots.workflowTasks } : {}),
    ...(config.workerSlots.activities ? { maxConcurrentActivityTaskExecutions: config.workerSlots.activities } : {}),
  };
}

/** The job, webhook and schedule activities, over one set of the job rules (`core`). */
function workerActivities(deps: WorkerDeps, core: JobCore, gateway: JobGateway) {
  const { config, knex, log, metrics } = deps;
  const { schemas, slots, secrets, outbox } = core;
  const runs = createJobRuns({
    knex,
    log,
    metrics,
    schemas,
    gateway,
    slots,
    perTenantMetrics: core.perTenantMetrics,
    maxCascadeDepth: config.jobs.maxCascadeDepth,
    secrets,
    outbox,
  });
  const activities = createActivities({
    knex,
    runs,
    gateway,
    log,
    metrics,
    clients: {
      lambda: deps.lambda ?? new LambdaClient(AWS_CALL_LIMITS),
      ecs: deps.ecs ?? new ECSClient(AWS_CALL_LIMITS),
      inProcess: deps.inProcess,
      httpPolicy: targetPolicy(config.webhooks),
    },
    jobTokens: createJobTokens(config.jobs.tokenKeys),
    completionDeadlineSeconds: config.jobs.completionDeadlineSeconds,
    publicBaseUrl: config.publicBaseUrl,
  });
  // A schedule's fires are the tenant's jobs like any other: they take its bucket's tokens and keep to its cap.
  const jobs = createJobsService({
    knex,
    gateway,
    schemas,
    log,
    metrics,
    completionWaitSeconds: 0,
    admission: core.admission,
    slots,
    outbox,
  });
  const fires = createScheduleFires({
    knex,
    jobs,
    services: createServicesService({ knex, rules: core.rules, jobs, outbox }),
    launch: (jobIds) => runs.launchJobs(jobIds),
    gateway,
    log,
    outbox,
  });
  const webhookActivities = createWebhookActivities({ knex, config: config.webhooks, secrets, jobUiUrl: (jobId) => gateway.uiUrl(jobId) });
  return { ...activities, ...webhookActivities, ...createScheduleActivities({ fires, gateway }) };
}
