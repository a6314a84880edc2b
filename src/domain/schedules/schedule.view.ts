import { iso } from '../../db/types';
import type { ScheduleRunRow, ScheduleView } from '../../db/schedules.repository';
import { temporalScheduleIdFor } from '../ports';

/** How many of Temporal's next fire times a schedule shows. */
const NEXT_FIRE_TIMES = 5;

/** A schedule's definition as the API shows it (and its `schedule.changed` webhook events carry). */
export function toScheduleRecord(row: ScheduleView) {
  const { spec } = row;
  return {
    schedule_id: row.schedule_id,
    action: row.action,
    client_id: row.client_id,
    target: { model_id: row.model_id, model_version: row.model_version, domain_id: row.domain_id, service_id: row.service_id },
    input: row.input,
    metadata: row.metadata,
    description: row.description,
    spec: {
      cron: spec.cron ?? [],
      intervals: (spec.intervals ?? []).map((i) => ({ every_seconds: i.every_seconds, offset_seconds: i.offset_seconds ?? 0 })),
      time_zone: spec.time_zone ?? 'UTC',
      start_at: spec.start_at ?? null,
      end_at: spec.end_at ?? null,
      jitter_seconds: spec.jitter_seconds ?? 0,
    },
    policies: row.policies,
    state: { paused: row.paused, note: row.note },
    revision: row.revision,
    temporal_schedule_id: temporalScheduleIdFor(row.schedule_id),
    created_by: row.created_by,
    updated_by: row.updated_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * The schedule with what Temporal says of it now (paused state and note, which pause-on-failure changes there, and
 * the next fire times) and its recent runs from Postgres, newest first.
 */
export function toSchedule(
  row: ScheduleView,
  live: { paused: boolean; note: string; nextFireTimes: Date[] } | undefined,
  runs: ScheduleRunRow[],
  temporalUrl: string | null,
) {
  const record = toScheduleRecord(row);
  return {
    ...record,
    state: live ? { paused: live.paused, note: live.note } : record.state,
    next_fire_times: (live?.nextFireTimes ?? []).slice(0, NEXT_FIRE_TIMES).map((t) => t.toISOString()),
    recent_runs: runs.map((r) => ({
      nominal_time: r.nominal_time.toISOString(),
      outcome: r.outcome,
      job_id: r.job_id,
      job_status: r.job_status,
      reason: r.reason,
      fire_workflow_id: r.workflow_id,
    })),
    temporal_url: temporalUrl,
  };
}
