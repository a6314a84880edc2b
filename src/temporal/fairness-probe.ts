import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../observability/metrics';

/** Whether the namespace's task queues dispatch by fairness key: what the probe saw, or `unknown` until it answers. */
export type TemporalFairness = 'on' | 'off' | 'unknown';

/** Tasks of the busy key, queued first, then of the quiet key: a fair queue dispatches the quiet ones early. */
const BUSY = 40;
const QUIET = 4;
/**
 * Of the quiet key's tasks, how many a fair queue hands out in the first third of the polls: measured 2 to 4 of 4 with
 * fairness on, 0 in every run without (server 1.29.1, four partitions); 1 is left undecided and probed again.
 */
const FAIR_IF_EARLY = 2;

/**
 * Asks the server what it does, since no API in server 1.29 says whether `matching.enableFairness` is on: on a
 * task queue of its own with no worker, starts `BUSY` workflows with fairness key `busy`, then `QUIET` with `quiet`,
 * polls their first workflow tasks and looks where the quiet ones came. First come, first served they come last
 * (in each of the queue's partitions); with fairness they take turns with the busy ones. Then terminates them all.
 * A task queue may have its own setting: this answers for the namespace's default.
 */
export async function probeTaskQueueFairness(client: Client, namespace: string): Promise<{ fairness: TemporalFairness; detail: string }> {
  const seen: string[] = [];
  // An undecided round (one quiet task early) is probed again, a few times at most.
  for (let round = 0; round < 3; round++) {
    const early = await probeRound(client, namespace);
    if (early === undefined) return { fairness: 'unknown', detail: 'the probe could not poll every task it queued' };
    seen.push(`${early} of ${QUIET}`);
    const detail = `${seen.join(', then ')} quiet tasks among the first third of ${BUSY + QUIET} polls`;
    if (early >= FAIR_IF_EARLY) return { fairness: 'on', detail };
    if (early === 0) return { fairness: 'off', detail };
  }
  return { fairness: 'unknown', detail: `${seen.join(', then ')} quiet tasks among the first third of the polls` };
}

/** One round of the probe: how many quiet tasks came in the first third of the polls; undefined when some never came. */
async function probeRound(client: Client, namespace: string): Promise<number | undefined> {
  const taskQueue = `mos-fairness-probe-${randomUUID()}`;
  const ids: string[] = [];
  try {
    for (const [key, n] of [
      ['busy', BUSY],
      ['quiet', QUIET],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const workflowId = `${taskQueue}-${key}-${i}`;
        await client.workflow.start('mosFairnessProbe', {
          taskQueue,
          workflowId,
          workflowExecutionTimeout: '1 minute',
          priority: { fairnessKey: key },
        });
        ids.push(workflowId);
      }
    }
    const order: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const task = await client.withDeadline(Date.now() + 5000, () =>
        client.workflowService.pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity: 'mos-fairness-probe' }),
      );
      const id = task.workflowExecution?.workflowId;
      if (!id) return undefined;
      order.push(id.includes('-quiet-') ? 'quiet' : 'busy');
    }
    return order.slice(0, Math.ceil(order.length / 3)).filter((k) => k === 'quiet').length;
  } finally {
    await Promise.all(
      ids.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('fairness probe done')
          .catch(() => undefined),
      ),
    );
  }
}

/**
 * Probes once in the background (src/composition/index.ts, at the API's start): logs the answer, a warning when fairness is
 * off (the service's own shares and release order are then what protects tenants: docs/fairness.md), sets
 * `mos_temporal_fairness` and answers it to readiness. A failed probe leaves `unknown` and tries again after a minute.
 */
export function watchTemporalFairness(deps: { client: Client; namespace: string; log: Logger; metrics?: ServiceMetrics }) {
  let state: TemporalFairness = 'unknown';
  let detail = 'not probed yet';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const probe = async (): Promise<void> => {
    try {
      const result = await probeTaskQueueFairness(deps.client, deps.namespace);
      ({ fairness: state, detail } = result);
    } catch (err) {
      [state, detail] = ['unknown', `probe failed: ${(err as Error).message}`];
    }
    deps.metrics?.temporalFairness(state);
    if (state === 'on') deps.log.info({ detail }, 'Temporal task-queue fairness is on');
    else if (state === 'off')
      deps.log.warn(
        { detail },
        "Temporal task-queue fairness is off on this namespace (matching.enableFairness): tenants' jobs are dispatched first come, first served there, and the service's fair shares (JOB_CAPACITY) are what keep one tenant's burst from delaying another's",
      );
    else deps.log.warn({ detail }, 'could not tell whether Temporal task-queue fairness is on; probing again in a minute');
    if (state === 'unknown' && !stopped) timer = setTimeout(() => void probe(), 60_000).unref();
  };
  const first = probe();
  return {
    /** For readiness: `on`, `off` or `unknown`, with what the probe saw. */
    describe: () => `${state} (${detail})`,
    get state() {
      return state;
    },
    /** Settles once the first probe answered. */
    ready: first,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await first;
    },
  };
}

export type TemporalFairnessWatch = ReturnType<typeof watchTemporalFairness>;
