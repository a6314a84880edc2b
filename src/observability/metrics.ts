import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobStatus, JobTrigger } from '../shapes';

/**
 * Every label value below comes from a closed set (route templates, job types, triggers, statuses, handler kinds,
 * Temporal operations, tenant classes), never from ids unless an operator opts in (METRICS_PER_TENANT): a series per job or tenant would grow without bound and make every
 * Prometheus query slower. Per-job and per-tenant questions go to the API or to Temporal visibility
 * (docs/observability.md).
 */
export type JobType = 'inference' | 'training';
export type HandlerKind = 'lambda' | 'container_task' | 'in_process';
/** How the completion route answered: the three answers a handler acts on. */
export type CompletionOutcome = '200' | '207' | '409';

// The closed label sets of the job series, each checked complete against its type: every series exists from the
// start with 0, so a dashboard or an alert sees 0 before the first job instead of no data.
const JOB_TYPES = Object.keys({ inference: 1, training: 1 } satisfies Record<JobType, 1>);
const TRIGGERS = Object.keys({
  service_init: 1,
  service_update: 1,
  direct: 1,
  assignment: 1,
  cascade: 1,
  rerun: 1,
  schedule: 1,
  shadow: 1,
} satisfies Record<JobTrigger, 1>);
// Outcomes only: a cancellation is not counted here (docs/observability.md).
const FINAL_STATUSES = Object.keys({ success: 1, failure: 1, timed_out: 1 } satisfies Record<
  Exclude<JobStatus, 'pending' | 'running' | 'cancelled'>,
  1
>);
const HANDLERS = Object.keys({ lambda: 1, container_task: 1, in_process: 1 } satisfies Record<HandlerKind, 1>);
const COMPLETION_OUTCOMES = Object.keys({ 200: 1, 207: 1, 409: 1 } satisfies Record<CompletionOutcome, 1>);
/** prom-client's gauges named like counters (`promtool check metrics` refuses them); `nodejs_active_*` by type stay. */
const COUNTER_NAMED_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export interface PoolStats {
  used: number;
  idle: number;
  waiting: number;
  max: number;
}

// Job and request durations span milliseconds (in-process handlers) to the completion deadline (an hour).
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const SCHEDULE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const TEMPORAL_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The service's own metrics, on a registry of their own (never prom-client's global one), so each process
 * and each test builds its set and reads exact counts. The API and the worker build the same set; each
 * moves the series of the work it does, and Prometheus sums them across processes.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'mos_http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly httpInFlight = new Gauge({
    name: 'mos_http_requests_in_flight',
    help: 'HTTP requests being served',
    registers: [this.registry],
  });

  readonly jobsStarted = new Counter({
    name: 'mos_jobs_started_total',
    help: 'Job workflows started, by job type and trigger',
    labelNames: ['job_type', 'trigger'],
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: 'mos_jobs_finished_total',
    help: 'Jobs that reached a final state, by job type and status',
    labelNames: ['job_type', 'status'],
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'mos_job_duration_seconds',
    help: 'Time from a job being accepted to its final state',
    labelNames: ['job_type', 'status'],
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  readonly completions = new Counter({
    name: 'mos_job_completion_reports_total',
    help: 'Completion reports by answer: 200 recorded, 207 recorded with a failed cascade entry, 409 conflicting',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly cascadeEntries = new Counter({
    name: 'mos_cascade_entries_total',
    help: 'Cascade entries of finished jobs: fired (job started) or failed',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly dispatchAttempts = new Counter({
    name: 'mos_dispatch_attempts_total',
    help: 'Handler dispatch attempts (activity attempts) by handler kind',
    labelNames: ['handler'],
    registers: [this.registry],
  });
  readonly dispatchFailures = new Counter({
    name: 'mos_dispatch_failures_total',
    help: 'Failed handler dispatch attempts by handler kind; retryable ones are tried again',
    labelNames: ['handler', 'retryable'],
    registers: [this.registry],
  });
  // `tenant` is the tenant class (none, default, custom: src/domain/common/limits.ts `tenantClass`), or the tenant id where
  // METRICS_PER_TENANT=on opts in; `caller` for the per-caller request limit.
  readonly throttled = new Counter({
    name: 'mos_requests_throttled_total',
    help: 'Requests answered 429, by limit (requests: per caller; jobs: per tenant) and tenant class',
    labelNames: ['limit', 'tenant'],
    registers: [this.registry],
  });
  readonly jobsQueued = new Counter({
    name: 'mos_jobs_queued_total',
    help: 'Jobs held pending because their tenant was at its max_running_jobs, by trigger and tenant class',
    labelNames: ['trigger', 'tenant'],
    registers: [this.registry],
  });
  readonly jobsReleased = new Counter({
    name: 'mos_jobs_released_total',
    help: 'Held jobs started once their tenant had a free slot, by trigger and tenant class',
    labelNames: ['trigger', 'tenant'],
    registers: [this.registry],
  });
  readonly scheduleToStart = new Histogram({
    name: 'mos_job_schedule_to_start_seconds',
    help: "Time a job's dispatch activity waited in Temporal's task queue before a worker took it, by trigger and tenant class",
    labelNames: ['trigger', 'tenant'],
    buckets: SCHEDULE_BUCKETS,
    registers: [this.registry],
  });
  readonly requestQueueWait = new Histogram({
    name: 'mos_request_queue_wait_seconds',
    help: 'Time a request waited in its flow queue for a seat, by priority level (reads, writes)',
    labelNames: ['level'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly requestsShed = new Counter({
    name: 'mos_requests_shed_total',
    help: 'Requests answered 429 by the fair queue, by priority level and reason (queue_full, wait)',
    labelNames: ['level', 'reason'],
    registers: [this.registry],
  });
  readonly temporalFairnessOn = new Gauge({
    name: 'mos_temporal_fairness',
    help: "Whether the namespace's task queues dispatch by fairness key, as the API's probe saw: 1 on, 0 off, -1 unknown",
    registers: [this.registry],
  });
  private requestQueues?: () => Record<string, { waiting: number; inUse: number }>;
  readonly temporalCalls = new Histogram({
    name: 'mos_temporal_client_duration_seconds',
    help: 'Temporal client calls by operation and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: TEMPORAL_BUCKETS,
    registers: [this.registry],
  });

  constructor(options: { pool?: () => PoolStats | undefined; defaultMetrics?: boolean } = {}) {
    const { pool } = options;
    if (pool) {
      new Gauge({
        name: 'mos_db_pool_connections',
        help: 'Postgres pool connections: used, idle, and requests waiting for one',
        labelNames: ['state'],
        registers: [this.registry],
        collect() {
          const stats = pool();
          if (!stats) return;
          this.set({ state: 'used' }, stats.used);
          this.set({ state: 'idle' }, stats.idle);
          this.set({ state: 'waiting' }, stats.waiting);
        },
      });
      new Gauge({
        name: 'mos_db_pool_max',
        help: 'Largest number of connections the Postgres pool opens',
        registers: [this.registry],
        collect() {
          const stats = pool();
          if (stats) this.set(stats.max);
        },
      });
    }
    const queues = () => this.requestQueues?.() ?? {};
    new Gauge({
      name: 'mos_request_queue_length',
      help: 'Requests waiting in the fair queue for a seat, by priority level',
      labelNames: ['level'],
      registers: [this.registry],
      collect() {
        for (const [level, q] of Object.entries(queues())) this.set({ level }, q.waiting);
      },
    });
    new Gauge({
      name: 'mos_request_seats_in_use',
      help: 'Requests being served by the fair queue, by priority level',
      labelNames: ['level'],
      registers: [this.registry],
      collect() {
        for (const [level, q] of Object.entries(queues())) this.set({ level }, q.inUse);
      },
    });
    // Process metrics (CPU, memory, event loop lag); off in tests that only count the service's series.
    if (options.defaultMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of COUNTER_NAMED_GAUGES) this.registry.removeSingleMetric(name);
    }
    this.initialiseJobSeries();
  }

  private initialiseJobSeries(): void {
    for (const job_type of JOB_TYPES) {
      for (const trigger of TRIGGERS) this.jobsStarted.inc({ job_type, trigger }, 0);
      for (const status of FINAL_STATUSES) {
        this.jobsFinished.inc({ job_type, status }, 0);
        this.jobDuration.zero({ job_type, status });
      }
    }
    this.temporalFairnessOn.set(-1);
    for (const level of ['reads', 'writes']) {
      this.requestQueueWait.zero({ level });
      for (const reason of ['queue_full', 'wait']) this.requestsShed.inc({ level, reason }, 0);
    }
    for (const outcome of COMPLETION_OUTCOMES) this.completions.inc({ outcome }, 0);
    for (const outcome of ['fired', 'failed']) this.cascadeEntries.inc({ outcome }, 0);
    for (const handler of HANDLERS) {
      this.dispatchAttempts.inc({ handler }, 0);
      for (const retryable of ['true', 'false']) this.dispatchFailures.inc({ handler, retryable }, 0);
    }
  }

  jobStarted(jobType: string, trigger: string): void {
    this.jobsStarted.inc({ job_type: jobType, trigger });
  }

  jobFinished(jobType: string, status: string, seconds: number): void {
    this.jobsFinished.inc({ job_type: jobType, status });
    this.jobDuration.observe({ job_type: jobType, status }, seconds);
  }

  requestThrottled(limit: 'requests' | 'jobs', tenant: string): void {
    this.throttled.inc({ limit, tenant });
  }

  /** The fair queue's levels, read at each scrape. */
  watchRequestQueues(read: () => Record<string, { waiting: number; inUse: number }>): void {
    this.requestQueues = read;
  }

  temporalFairness(state: 'on' | 'off' | 'unknown'): void {
    this.temporalFairnessOn.set(state === 'on' ? 1 : state === 'off' ? 0 : -1);
  }

  requestShed(level: string, reason: string): void {
    this.requestsShed.inc({ level, reason });
  }

  jobQueued(trigger: string, tenant: string): void {
    this.jobsQueued.inc({ trigger, tenant });
  }

  jobReleased(trigger: string, tenant: string): void {
    this.jobsReleased.inc({ trigger, tenant });
  }

  completionReported(outcome: CompletionOutcome): void {
    this.completions.inc({ outcome });
  }

  cascadeFinished(fired: number, failed: number): void {
    if (fired) this.cascadeEntries.inc({ outcome: 'fired' }, fired);
    if (failed) this.cascadeEntries.inc({ outcome: 'failed' }, failed);
  }

  /** The Prometheus text exposition of this registry. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
