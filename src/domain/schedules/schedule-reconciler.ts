import type { Logger } from 'pino';
import type { Knex } from 'knex';
import { reconcileSchedules } from './schedules.service';
import type { ScheduleGateway } from '../ports';
import { every } from '../../periodic';

/**
 * A schedule's row and its Temporal Schedule change in one transaction, but a commit can still be lost after
 * Temporal took the change (or an operator deletes a schedule in the Temporal UI). This loop mends both
 * directions (`reconcileSchedules`), every `everySeconds`.
 */
export function startScheduleReconciler(deps: {
  knex: Knex;
  gateway: ScheduleGateway;
  log: Logger;
  everySeconds: number;
  graceSeconds?: number;
}) {
  const stop = every(deps.everySeconds * 1000, 5000, () =>
    reconcileSchedules(deps, deps.graceSeconds ?? 60).catch((err: unknown) => {
      deps.log.warn({ err }, 'schedule reconciler pass failed');
    }),
  );
  return {
    /** Ends the loop and waits for a pass under way. */
    stop,
  };
}
