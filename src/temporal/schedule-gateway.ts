import {
  type Client,
  type ScheduleOptions,
  type ScheduleSpec as TemporalSpec,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  ServiceError,
} from '@temporalio/client';
import { status as grpcStatus } from '@grpc/grpc-js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SearchAttributePair } from '@temporalio/common';
import * as sa from '../../workflows/search-attributes';
import type { ScheduledJobInput } from '../../workflows/schedule-definitions';
import type { OverlapPolicy, ScheduleSpec } from '../shapes';
import type { Config } from '../config';
import {
  scheduleIdOf,
  SCHEDULE_ID_PREFIX,
  temporalScheduleIdFor,
  ScheduleSpecRefused,
  type ScheduleDefinition,
  type ScheduleGateway,
} from '../domain/ports';

/**
 * The one place the service talks to Temporal about schedules: the Temporal Schedule id, the fire workflow it
 * starts, the memo and search attributes that make it findable in the Web UI's Schedules view, and every call.
 */

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

function temporalSpec(spec: ScheduleSpec): TemporalSpec {
  return {
    cronExpressions: spec.cron ?? [],
    intervals: (spec.intervals ?? []).map((i) => ({ every: i.every_seconds * 1000, offset: (i.offset_seconds ?? 0) * 1000 })),
    timezone: spec.time_zone ?? 'UTC',
    startAt: spec.start_at ? new Date(spec.start_at) : undefined,
    endAt: spec.end_at ? new Date(spec.end_at) : undefined,
    jitter: (spec.jitter_seconds ?? 0) * 1000,
  };
}

function temporalPolicies(def: ScheduleDefinition) {
  const { policies } = def;
  return {
    overlap: OVERLAP[policies.overlap],
    catchupWindow: policies.catchup_window_seconds * 1000,
    pauseOnFailure: policies.pause_on_failure,
  };
}

/**
 * Job attributes the namespace already defines, on the schedule itself (not on its fire workflows, which would
 * then show in job lists filtered by tenant): `ClientId = "acme"` finds a tenant's schedules. No slot is added.
 */
function searchAttributes(def: ScheduleDefinition): SearchAttributePair[] {
  const { labels } = def;
  const pairs: SearchAttributePair[] = [
    { key: sa.JOB_TYPE, value: def.action === 'training' ? 'training' : 'inference' },
    { key: sa.JOB_TRIGGER, value: 'schedule' },
  ];
  if (labels.modelId) pairs.push({ key: sa.MODEL_ID, value: labels.modelId });
  if (labels.modelVersion) pairs.push({ key: sa.MODEL_VERSION, value: labels.modelVersion });
  if (labels.clientId) pairs.push({ key: sa.CLIENT_ID, value: labels.clientId });
  if (labels.domainId) pairs.push({ key: sa.DOMAIN_ID, value: labels.domainId });
  if (labels.serviceId) pairs.push({ key: sa.SERVICE_ID, value: labels.serviceId });
  return pairs;
}

function target(def: ScheduleDefinition): string {
  const { labels } = def;
  if (def.action === 'service_inference') return `re-scoring of ${labels.clientId}/${labels.domainId}/${labels.serviceId}`;
  return `${def.action} of ${labels.modelId}@${labels.modelVersion}`;
}

/** How long a describe (or an update, which describes first) may wait for a new schedule to answer queries. */
const QUERY_BUDGET_MS = 10000;

/** The server's refusals that a retry cannot change: the schedule is gone, or the request itself is wrong. */
function final(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return true;
  const code = (err.cause as { code?: number } | undefined)?.code;
  return code === grpcStatus.INVALID_ARGUMENT || code === grpcStatus.PERMISSION_DENIED || code === grpcStatus.UNAUTHENTICATED;
}

/** What each fire of the schedule starts: its fire workflow. */
function action(taskQueue: string, def: ScheduleDefinition): ScheduleOptions['action'] {
  const input: ScheduledJobInput = { scheduleId: def.scheduleId };
  return {
    type: 'startWorkflow',
    workflowType: 'scheduledJobWorkflow',
    // Temporal appends each fire's nominal time: `schedule-<id>-2031-07-01T02:00:00Z`.
    workflowId: temporalScheduleIdFor(def.scheduleId),
    taskQueue,
    args: [input],
    staticSummary: `fire of schedule ${def.scheduleId}: ${target(def)}`,
  };
}

/**
 * The server answers a describe by querying the schedule's own workflow, which cannot answer before it has run its
 * first task: right after a create or an update, on a loaded server, that query fails for a moment (seen in CI as
 * "Failed to describe schedule" on an update made just after the create). Such calls retry within one budget.
 */
async function queried<T>(client: Client, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + QUERY_BUDGET_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await client.withDeadline(deadline, fn);
    } catch (err) {
      if (final(err) || Date.now() + wait >= deadline) throw err;
      await sleep(wait);
    }
  }
}

/** A spec Temporal refuses is the caller's: ScheduleSpecRefused. */
async function refusingSpec<T>(fn: () => Promise<T>, call: <U>(fn: () => Promise<U>) => Promise<U>): Promise<T> {
  try {
    return await call(fn);
  } catch (err) {
    // The client turns the server's "Invalid schedule spec" into a TypeError with the server's reason.
    if (err instanceof TypeError) throw new ScheduleSpecRefused(err.message);
    throw err;
  }
}

/** The schedule as Temporal creates it: spec, action, policies, state, memo and search attributes. */
function createOptions(taskQueue: string, def: ScheduleDefinition): ScheduleOptions {
  return {
    scheduleId: temporalScheduleIdFor(def.scheduleId),
    spec: temporalSpec(def.spec),
    action: action(taskQueue, def),
    policies: temporalPolicies(def),
    state: { paused: def.paused, note: def.note },
    memo: {
      schedule_id: def.scheduleId,
      action: def.action,
      target: target(def),
      client_id: def.labels.clientId,
      description: def.labels.description,
    },
    typedSearchAttributes: searchAttributes(def),
  };
}

export function createScheduleGateway(options: { client: Client; taskQueue: string; namespace: string; uiUrl?: string }): ScheduleGateway {
  const { client, taskQueue, namespace, uiUrl } = options;
  // Bounded like a job start: a Temporal that does not answer gives the caller a 503, not a hung request.
  const bounded = <T>(fn: () => Promise<T>) => client.withDeadline(Date.now() + 5000, fn);
  const handle = (scheduleId: string) => client.schedule.getHandle(temporalScheduleIdFor(scheduleId));

  return {
    async create(def) {
      try {
        await refusingSpec(() => client.schedule.create(createOptions(taskQueue, def)), bounded);
        return 'created';
      } catch (err) {
        if (err instanceof ScheduleAlreadyRunning) return 'existing';
        throw err;
      }
    },
    async update(def) {
      await refusingSpec(
        () =>
          handle(def.scheduleId).update((previous) => ({
            ...previous,
            spec: temporalSpec(def.spec),
            action: action(taskQueue, def),
            policies: temporalPolicies(def),
            typedSearchAttributes: searchAttributes(def),
          })),
        (fn) => queried(client, fn),
      );
    },
    async delete(scheduleId) {
      try {
        await bounded(() => handle(scheduleId).delete());
        return 'deleted';
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) return 'absent';
        throw err;
      }
    },
    async pause(scheduleId, note) {
      await bounded(() => handle(scheduleId).pause(note));
    },
    async unpause(scheduleId, note) {
      await bounded(() => handle(scheduleId).unpause(note));
    },
    async trigger(scheduleId, overlap) {
      await bounded(() => handle(scheduleId).trigger(OVERLAP[overlap]));
    },
    async backfill(scheduleId, start, end, overlap) {
      await bounded(() => handle(scheduleId).backfill({ start, end, overlap: OVERLAP[overlap] }));
    },
    async describe(scheduleId) {
      try {
        const d = await queried(client, () => handle(scheduleId).describe());
        return {
          paused: d.state.paused,
          note: d.state.note ?? '',
          nextFireTimes: d.info.nextActionTimes,
          running: d.info.runningActions.length,
          createdAt: d.info.createdAt,
        };
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) return undefined;
        throw err;
      }
    },
    async listIds() {
      const ids: string[] = [];
      for await (const summary of client.schedule.list({ query: `ScheduleId STARTS_WITH "${SCHEDULE_ID_PREFIX}"` })) {
        const id = scheduleIdOf(summary.scheduleId);
        if (id) ids.push(id);
      }
      return ids;
    },
    uiUrl(scheduleId) {
      if (!uiUrl) return null;
      return `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/schedules/${encodeURIComponent(temporalScheduleIdFor(scheduleId))}`;
    },
  };
}

/** The schedule gateway as configured: task queue, namespace and UI link from the config. */
export function scheduleGatewayFor(client: Client, config: Pick<Config, 'temporal'>): ScheduleGateway {
  const { taskQueue, namespace, uiUrl } = config.temporal;
  return createScheduleGateway({ client, taskQueue, namespace, uiUrl });
}
