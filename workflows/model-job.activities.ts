import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// The job workflow's activities, one proxy per group of options.
// Timeouts fit the work, so a task lost with a dead worker is retried within seconds, not minutes:
// database steps and one AWS call (a Lambda `Event` invoke, an ECS RunTask) answer well under a second.
// No maximumAttempts: activities fail non-retryably on errors retrying cannot fix (activities/classified.ts),
// so what is left is an outage of Postgres, Temporal or AWS, waited out at one attempt a minute however long it lasts.
const DB_STEP_OPTIONS = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
export const db = proxyActivities<Activities>(DB_STEP_OPTIONS);
// The claim, the subscription list and the stored answer as local activities: run by the worker inside the workflow
// task that needs them, with no round trip through the server per step (and, since `one-step-outcome`, the outcome).
export const localDb = proxyLocalActivities<Activities>(DB_STEP_OPTIONS);
export const dispatcher = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
/**
 * The dispatch since `http-handlers`: a sync `http` handler answers with the job's output, so the call may last as long
 * as the model runs (up to 900 s, HttpHandler.timeout_seconds); the activity heartbeats, and a lost worker is noticed by
 * the heartbeat time-out instead. Failed dispatches are retried within the job's completion deadline, not forever.
 */
export function longDispatcher(deadlineSeconds: number) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '16 minutes',
    heartbeatTimeout: '15 seconds',
    scheduleToCloseTimeout: `${deadlineSeconds} seconds`,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
}
export const cascades = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** The database steps that ran as remote activities before `local-db-steps` and as local ones since. */
export type DbSteps = typeof db | typeof localDb;
