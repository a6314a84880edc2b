import type { ScheduleView } from '../../db/schedules.repository';
import { toScheduleRecord } from './schedule.view';
import type { OutboxEvents } from '../webhooks';

/** What a `schedule.changed` event announces. */
export type ScheduleChange = 'created' | 'updated' | 'paused' | 'unpaused' | 'deleted';

function owner(schedule: ScheduleView) {
  return {
    client_id: schedule.client_id,
    domain_id: schedule.domain_id,
    model_id: schedule.model_id,
    ordering_key: `schedule:${schedule.schedule_id}`,
  };
}

/**
 * Outbox rows of schedules (docs/schedules.md): a schedule's events go to its tenant's endpoints (a service
 * schedule) or to platform-wide ones (a schedule of a model version belongs to no tenant), in order per schedule.
 * `events` is the outbox on the change's transaction.
 */
export const scheduleEvents = {
  async changed(events: OutboxEvents, schedule: ScheduleView, change: ScheduleChange): Promise<void> {
    await events.record({ type: 'schedule.changed', ...owner(schedule), data: { change, ...toScheduleRecord(schedule) } });
  },

  async runSkipped(events: OutboxEvents, schedule: ScheduleView, nominalTime: Date, reason: string): Promise<void> {
    await events.record({
      type: 'schedule.run_skipped',
      ...owner(schedule),
      data: { schedule_id: schedule.schedule_id, action: schedule.action, nominal_time: nominalTime.toISOString(), reason },
    });
  },
};
