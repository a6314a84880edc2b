import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { inTransaction } from '../../db/transaction';
import * as repo from '../../db/schedules.repository';
import { InvalidInputError } from '../../errors';
import type { OverlapPolicy } from '../../shapes';
import type { Schemas } from '../../openapi/types';
import type { ScheduleGateway } from '../ports';
import type { Admission } from '../jobs';
import { fireTimes } from './schedule-spec';
import { scheduleEvents } from './schedule-events';
import type { Outbox } from '../webhooks';
import { presentSchedule, temporalChange, visibleSchedule, type ScheduleScope } from './schedule-access';

/** The controls of an existing schedule: pause and unpause, and fires on demand (a trigger, a backfill). */
export function createScheduleControls(deps: {
  knex: Knex;
  gateway: ScheduleGateway;
  log: Logger;
  limits: { maxBackfillFires: number };
  admission?: Pick<Admission, 'assertRoom'>;
  outbox: Outbox;
}) {
  const { knex, gateway, limits, outbox } = deps;

  async function changeState(scope: ScheduleScope, scheduleId: string, paused: boolean, note: string | undefined, actor: string | null) {
    await inTransaction(knex, async (trx) => {
      const row = await visibleSchedule(trx, scope, scheduleId, true);
      const text = note ?? '';
      await repo.updateSchedule(trx, scheduleId, { paused, note: text, updated_by: actor });
      await scheduleEvents.changed(outbox(trx), { ...row, paused, note: text }, paused ? 'paused' : 'unpaused');
      await temporalChange(() => (paused ? gateway.pause(scheduleId, text) : gateway.unpause(scheduleId, text)));
    });
    return presentSchedule(deps, (await repo.findSchedule(knex, scheduleId))!);
  }

  return {
    pause: (scope: ScheduleScope, scheduleId: string, note: string | undefined, actor: string | null) =>
      changeState(scope, scheduleId, true, note, actor),

    unpause: (scope: ScheduleScope, scheduleId: string, note: string | undefined, actor: string | null) =>
      changeState(scope, scheduleId, false, note, actor),

    /**
     * One fire now, through Temporal; its nominal time is when Temporal takes it. By default under the schedule's own
     * overlap policy: Temporal watches no job started under `allow_all`, so the schedule's `skip` and pause-on-failure
     * would not see a triggered job that ran under it.
     */
    async trigger(scope: ScheduleScope, scheduleId: string, requested?: OverlapPolicy) {
      const row = await visibleSchedule(knex, scope, scheduleId);
      await deps.admission?.assertRoom(row.client_id, 1, 'the trigger');
      const overlap = requested ?? row.policies.overlap;
      await temporalChange(() => gateway.trigger(scheduleId, overlap));
      return { schedule_id: scheduleId, kind: 'trigger' as const, overlap, nominal_times: null };
    },

    /**
     * The fires of [start_at, end_at), at most SCHEDULE_MAX_BACKFILL_FIRES, handed to Temporal. A nominal time
     * already decided (a repeated backfill) starts nothing again: its run row and job id are its identity.
     */
    async backfill(scope: ScheduleScope, scheduleId: string, body: Schemas['ScheduleBackfillRequest']) {
      const start = new Date(body.start_at);
      const end = new Date(body.end_at);
      if (end <= start) throw new InvalidInputError('end_at must be after start_at');
      if (end.getTime() > Date.now()) throw new InvalidInputError('end_at must not be in the future: a backfill takes past fires');
      const row = await visibleSchedule(knex, scope, scheduleId);
      // [start_at, end_at): a past hour at 10-minute intervals is 6 fires. Temporal's backfill includes both ends,
      // so it is handed the range's last millisecond as its end.
      const last = new Date(end.getTime() - 1);
      const times = fireTimes(row.spec, start, last, limits.maxBackfillFires + 1);
      if (times.length > limits.maxBackfillFires) {
        throw new InvalidInputError(
          `start_at..end_at holds more than ${limits.maxBackfillFires} fires, the most one backfill takes (SCHEDULE_MAX_BACKFILL_FIRES); split the range`,
        );
      }
      await deps.admission?.assertRoom(row.client_id, times.length, 'the backfill');
      // Every fire of the range runs, one at a time and after any running job of the schedule, so that its overlap
      // policy and pause-on-failure see each of them (Temporal watches no job started under `allow_all`).
      const overlap = body.overlap ?? 'buffer_all';
      await temporalChange(() => gateway.backfill(scheduleId, start, last, overlap));
      return { schedule_id: scheduleId, kind: 'backfill' as const, overlap, nominal_times: times.map((t) => t.toISOString()) };
    },
  };
}
