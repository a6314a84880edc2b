import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as repo from '../../db/schedules.repository';
import { InvalidInputError, NotFoundError, UnavailableError, UnprocessableError } from '../../errors';
import { ScheduleSpecRefused, type ScheduleDefinition, type ScheduleGateway } from '../ports';
import { fireTimes } from './schedule-spec';
import { toSchedule } from './schedule.view';

/** A schedule collection: a tenant's service re-scorings, or the schedules of model versions of one action. */
export type ScheduleScope = { action: 'service_inference'; clientId: string } | { action: 'training' | 'inference' };

const RECENT_RUNS = 10;
export const PREVIEW_FIRES = 5;

/** The schedule as its Temporal Schedule is made from it. */
export function definition(row: repo.ScheduleView): ScheduleDefinition {
  return {
    scheduleId: row.schedule_id,
    action: row.action,
    spec: row.spec,
    policies: row.policies,
    paused: row.paused,
    note: row.note,
    labels: {
      clientId: row.client_id,
      domainId: row.domain_id,
      serviceId: row.service_id,
      modelId: row.model_id,
      modelVersion: row.model_version,
      description: row.description,
    },
  };
}

/** The schedule's row when it belongs to the scope, else 404. */
export async function visibleSchedule(db: Knex | Knex.Transaction, scope: ScheduleScope, scheduleId: string, lock = false) {
  const row = await repo.findSchedule(db, scheduleId, lock);
  const owned = row && row.action === scope.action && (scope.action !== 'service_inference' || row.client_id === scope.clientId);
  if (!owned) throw new NotFoundError(`schedule ${scheduleId} not found`);
  return row;
}

/** Temporal's refusal of a calendar ours let through is still the caller's mistake: a 400 naming the spec. */
export async function temporalChange<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ScheduleSpecRefused) throw new InvalidInputError(`spec: Temporal refused it: ${err.message}`);
    if (err instanceof InvalidInputError || err instanceof UnprocessableError) throw err;
    throw new UnavailableError(`Temporal did not take the schedule change: ${(err as Error).message}`, { cause: err });
  }
}

/** Temporal answers for the schedule, or the row alone while Temporal is unreachable (the read still answers). */
export async function presentSchedule(deps: { knex: Knex; gateway: ScheduleGateway; log: Logger }, row: repo.ScheduleView) {
  const { knex, gateway } = deps;
  const [live, runs] = await Promise.all([
    gateway.describe(row.schedule_id).catch((err: unknown) => {
      deps.log.warn({ err, scheduleId: row.schedule_id }, 'Temporal did not describe the schedule; answering from the row');
      return undefined;
    }),
    repo.recentRuns(knex, row.schedule_id, RECENT_RUNS),
  ]);
  // Temporal computes a new schedule's next action times in the schedule's own workflow, a moment after the
  // create returns: until then (and when it does not answer) they come from the same calendar rules.
  const times =
    live?.nextFireTimes.length || row.paused
      ? live
      : { paused: row.paused, note: row.note, ...live, nextFireTimes: fireTimes(row.spec, new Date(), undefined, PREVIEW_FIRES) };
  return toSchedule(row, times, runs, gateway.uiUrl(row.schedule_id));
}
