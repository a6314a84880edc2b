import { assertValidSpec, fireTimes, isTimeZone } from '../../../../src/domain/schedules/schedule-spec';
import { scheduledJobId } from '../../../../src/domain/schedules/schedule-fires';

const rules = { minIntervalSeconds: 60 };
const problem = (spec: object) => {
  try {
    assertValidSpec(spec, rules);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('schedule specs', () => {
  it('accept cron expressions and intervals at or above the shortest interval', () => {
    expect(problem({ cron: ['0 2 * * *'], time_zone: 'Europe/Berlin' })).toBeUndefined();
    expect(problem({ intervals: [{ every_seconds: 60, offset_seconds: 30 }] })).toBeUndefined();
  });

  it('refuse, naming the field and the rule: no entry, a bad cron, a bad time zone, a short interval, an end before the start', () => {
    expect(problem({})).toBe('spec must have at least one entry in cron or intervals');
    expect(problem({ cron: ['0 2 * *'] })).toMatch(/^spec\.cron\[0\] must have 5 fields/);
    expect(problem({ cron: ['0 2 * * *', '61 * * * *'] })).toMatch(/^spec\.cron\[1\] is not a valid cron expression/);
    expect(problem({ cron: ['0 2 * * *'], time_zone: 'Mars/Olympus' })).toMatch(/^spec\.time_zone must be an IANA time zone name/);
    expect(problem({ cron: ['0 2 * * *'], time_zone: '+01:00' })).toMatch(/^spec\.time_zone/);
    expect(problem({ intervals: [{ every_seconds: 59 }] })).toBe(
      'spec.intervals[0].every_seconds must be at least 60 (the shortest interval allowed), got 59',
    );
    expect(problem({ intervals: [{ every_seconds: 60, offset_seconds: 60 }] })).toBe(
      'spec.intervals[0].offset_seconds must be less than every_seconds',
    );
    expect(problem({ cron: ['0 2 * * *'], start_at: '2031-01-02T00:00:00Z', end_at: '2031-01-01T00:00:00Z' })).toBe(
      'spec.end_at must be after spec.start_at',
    );
  });

  it('knows time zones by IANA name only', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isTimeZone('Nowhere/Special')).toBe(false);
  });

  it('lists the fire times of intervals from the epoch, inclusive of both ends', () => {
    const times = fireTimes(
      { intervals: [{ every_seconds: 600 }] },
      new Date('2031-01-01T10:00:00Z'),
      new Date('2031-01-01T11:00:00Z'),
      100,
    );
    expect(times.map((t) => t.toISOString())).toEqual([
      '2031-01-01T10:00:00.000Z',
      '2031-01-01T10:10:00.000Z',
      '2031-01-01T10:20:00.000Z',
      '2031-01-01T10:30:00.000Z',
      '2031-01-01T10:40:00.000Z',
      '2031-01-01T10:50:00.000Z',
      '2031-01-01T11:00:00.000Z',
    ]);
  });

  it('lists cron fire times in the time zone, merged with intervals, within start and end, at most the limit', () => {
    const spec = { cron: ['30 2 * * *'], time_zone: 'Europe/Berlin', end_at: '2031-07-03T12:00:00Z' };
    expect(fireTimes(spec, new Date('2031-07-01T00:00:00Z'), undefined, 5).map((t) => t.toISOString())).toEqual([
      '2031-07-01T00:30:00.000Z',
      '2031-07-02T00:30:00.000Z',
      '2031-07-03T00:30:00.000Z',
    ]);
    const both = { cron: ['0 12 * * *'], intervals: [{ every_seconds: 86400 }] };
    expect(fireTimes(both, new Date('2031-07-01T00:00:00Z'), undefined, 3).map((t) => t.toISOString())).toEqual([
      '2031-07-01T00:00:00.000Z',
      '2031-07-01T12:00:00.000Z',
      '2031-07-02T00:00:00.000Z',
    ]);
  });

  it('matches day of month AND day of week, as Temporal does', () => {
    const times = fireTimes({ cron: ['0 0 1 * MON'] }, new Date('2031-01-01T00:00:00Z'), undefined, 2);
    expect(times.map((t) => t.toISOString())).toEqual(['2031-09-01T00:00:00.000Z', '2031-12-01T00:00:00.000Z']);
  });
});

describe('fire identity', () => {
  it('is the same for the same schedule and nominal time, and differs otherwise', () => {
    const at = new Date('2031-01-01T10:00:00Z');
    expect(scheduledJobId('s-1', at)).toBe(scheduledJobId('s-1', new Date(at.getTime())));
    expect(scheduledJobId('s-1', at)).not.toBe(scheduledJobId('s-2', at));
    expect(scheduledJobId('s-1', at)).not.toBe(scheduledJobId('s-1', new Date(at.getTime() + 1000)));
    expect(scheduledJobId('s-1', at)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
