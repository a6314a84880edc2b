import { Cron } from 'croner';
import { InvalidInputError } from '../../errors';
import type { ScheduleSpec } from '../../shapes';

/**
 * The calendar of a schedule, as the API takes it and the row stores it: checked here before anything is written,
 * and its fire times computed for previews (`?dry_run=true`, the fires a backfill will take). Temporal keeps the
 * authoritative calendar: a schedule's `next_fire_times` are Temporal's.
 */

export const MAX_SPEC_ENTRIES = 10;

/** A time zone the Temporal server can load by name: an IANA name (`Europe/Berlin`, `UTC`), never an offset. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

function cronOf(expression: string, timeZone: string): Cron {
  // Temporal matches day-of-month AND day-of-week when both are set (its ScheduleSpec docs); five fields only.
  return new Cron(expression, { timezone: timeZone, mode: '5-part', domAndDow: true, paused: true });
}

export function isTimeZone(name: string): boolean {
  if (!ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** 400 naming the field and the rule for the first problem of the spec; `field` is where the spec sits in the body. */
export function assertValidSpec(spec: ScheduleSpec, rules: { minIntervalSeconds: number }, field = 'spec'): void {
  const cron = spec.cron ?? [];
  const intervals = spec.intervals ?? [];
  if (cron.length + intervals.length === 0) throw new InvalidInputError(`${field} must have at least one entry in cron or intervals`);
  const zone = spec.time_zone ?? 'UTC';
  if (!isTimeZone(zone)) {
    throw new InvalidInputError(`${field}.time_zone must be an IANA time zone name such as Europe/Berlin or UTC, got "${zone}"`);
  }
  cron.forEach((expression, i) => {
    if (expression.trim().split(/\s+/).length !== 5) {
      throw new InvalidInputError(
        `${field}.cron[${i}] must have 5 fields (minute hour day-of-month month day-of-week), got "${expression}"`,
      );
    }
    try {
      cronOf(expression, zone);
    } catch (err) {
      throw new InvalidInputError(`${field}.cron[${i}] is not a valid cron expression: ${(err as Error).message}`);
    }
  });
  intervals.forEach((interval, i) => {
    if (interval.every_seconds < rules.minIntervalSeconds) {
      throw new InvalidInputError(
        `${field}.intervals[${i}].every_seconds must be at least ${rules.minIntervalSeconds} (the shortest interval allowed), got ${interval.every_seconds}`,
      );
    }
    if ((interval.offset_seconds ?? 0) >= interval.every_seconds) {
      throw new InvalidInputError(`${field}.intervals[${i}].offset_seconds must be less than every_seconds`);
    }
  });
  if (spec.start_at && spec.end_at && Date.parse(spec.end_at) <= Date.parse(spec.start_at)) {
    throw new InvalidInputError(`${field}.end_at must be after ${field}.start_at`);
  }
}

/**
 * The nominal fire times in [from, to] (inclusive, as Temporal's backfill and start/end), earliest first, at most
 * `limit`: the union of the cron expressions (in the spec's time zone) and the intervals (Unix epoch + n × every +
 * offset), within start_at and end_at. Jitter is not included: it moves when a fire runs, not its nominal time.
 */
export function fireTimes(spec: ScheduleSpec, from: Date, to: Date | undefined, limit: number): Date[] {
  const start = Math.max(from.getTime(), spec.start_at ? Date.parse(spec.start_at) : -Infinity);
  const end = Math.min(to?.getTime() ?? Infinity, spec.end_at ? Date.parse(spec.end_at) : Infinity);
  const times = new Set<number>();
  for (const { every_seconds, offset_seconds = 0 } of spec.intervals ?? []) {
    const every = every_seconds * 1000;
    const offset = offset_seconds * 1000;
    for (let t = Math.ceil((start - offset) / every) * every + offset, n = 0; t <= end && n < limit; t += every, n++) times.add(t);
  }
  for (const expression of spec.cron ?? []) {
    const cron = cronOf(expression, spec.time_zone ?? 'UTC');
    // nextRun is strictly after its argument: start one millisecond early so a fire at `start` counts.
    for (let at = cron.nextRun(new Date(start - 1)), n = 0; at && at.getTime() <= end && n < limit; at = cron.nextRun(at), n++) {
      times.add(at.getTime());
    }
  }
  return [...times]
    .sort((a, b) => a - b)
    .slice(0, limit)
    .map((t) => new Date(t));
}
