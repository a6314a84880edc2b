import { FairStarts } from '../../../../src/domain/jobs/launch/start-queue';
import { fairShare, roomFor } from '../../../../src/domain/jobs/launch/fair-share';
import { effectiveLimits, tenantClass, type LimitDefaults } from '../../../../src/domain/common/limits';
import { fairnessKeyFor, PLATFORM_FAIRNESS_KEY } from '../../../../src/domain/ports/job-gateway.port';
import { loadConfig } from '../../../../src/config';
import { dynamicConfigYaml, devServerArgs } from '../../../../src/dev/temporal/server-tuning';

const DEFAULTS: LimitDefaults = {
  jobsPerSecond: 50,
  jobsBurst: 200,
  maxRunningJobs: 0,
  requestsPerSecond: 200,
  requestsBurst: 400,
  jobCapacity: 40,
};

describe('FairStarts', () => {
  /** Queues `n` starts per key while the pool is busy, then releases them one at a time and records the order. */
  async function order(concurrency: number, queued: [string, number][]): Promise<string[]> {
    const pool = new FairStarts(concurrency);
    const ran: string[] = [];
    let releaseBlocker!: () => void;
    const blockers = Array.from({ length: concurrency }, () => pool.run('blocker', () => new Promise<void>((r) => (releaseBlocker = r))));
    const all: Promise<void>[] = [];
    for (const [key, n] of queued) {
      for (let i = 0; i < n; i++) all.push(pool.run(key, async () => void ran.push(`${key}${i}`)));
    }
    expect(pool.size).toBe(concurrency + queued.reduce((a, [, n]) => a + n, 0));
    releaseBlocker();
    await Promise.all([...blockers.slice(-1), ...all]);
    return ran;
  }

  it('serves waiting keys in turn, each in its own order, however many one of them queued first', async () => {
    expect(
      await order(1, [
        ['busy', 4],
        ['quiet', 1],
        ['other', 2],
      ]),
    ).toEqual(['busy0', 'quiet0', 'other0', 'busy1', 'other1', 'busy2', 'busy3']);
  });

  it('never runs more than its concurrency at once', async () => {
    const pool = new FairStarts(3);
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pool.run(`k${i % 4}`, async () => {
          peak = Math.max(peak, ++running);
          await new Promise((r) => setTimeout(r, 1));
          running--;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(pool.size).toBe(0);
  });

  it('rejects with the start and goes on with the next', async () => {
    const pool = new FairStarts(1);
    const failed = pool.run('a', () => Promise.reject(new Error('refused')));
    const next = pool.run('b', async () => 'ok');
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toBe('ok');
  });
});

describe('limits', () => {
  it("takes each field of the tenant's override and the default for the rest", () => {
    expect(effectiveLimits(DEFAULTS, null)).toEqual({ jobs_per_second: 50, burst: 200, max_running_jobs: null, fairness_weight: 1 });
    expect(effectiveLimits({ ...DEFAULTS, maxRunningJobs: 10 }, { burst: 5, fairness_weight: 2 })).toEqual({
      jobs_per_second: 50,
      burst: 5,
      max_running_jobs: 10,
      fairness_weight: 2,
    });
  });

  it('labels metrics by tenant class unless per-tenant series are asked for', () => {
    expect(tenantClass(null, null)).toBe('none');
    expect(tenantClass('acme', null)).toBe('default');
    expect(tenantClass('acme', { burst: 1 })).toBe('custom');
    expect(tenantClass('acme', null, true)).toBe('acme');
  });

  it('reads its defaults and JOB_FAIRNESS from the environment, naming a bad variable', () => {
    expect(loadConfig({}).limits).toEqual(DEFAULTS);
    expect(loadConfig({ TENANT_JOBS_PER_SECOND: '0.5', TENANT_MAX_RUNNING_JOBS: '3' }).limits).toMatchObject({
      jobsPerSecond: 0.5,
      maxRunningJobs: 3,
    });
    expect(loadConfig({ JOB_FAIRNESS: 'off' }).jobs.fairness).toBe(false);
    // The workers' capacity follows their workflow-task slots unless set.
    expect(loadConfig({ WORKER_WORKFLOW_TASK_SLOTS: '8' }).limits.jobCapacity).toBe(8);
    expect(loadConfig({ WORKER_WORKFLOW_TASK_SLOTS: '8', JOB_CAPACITY: '0' }).limits.jobCapacity).toBe(0);
    expect(() => loadConfig({ TENANT_JOBS_PER_SECOND: '-1' })).toThrow(/TENANT_JOBS_PER_SECOND/);
    expect(() => loadConfig({ JOB_FAIRNESS: 'yes' })).toThrow(/JOB_FAIRNESS/);
  });
});

describe('fairness keys', () => {
  it('is the client id, a key of its own for jobs of no tenant, and at most 64 bytes', () => {
    expect(fairnessKeyFor('acme')).toBe('acme');
    expect(fairnessKeyFor(null)).toBe(PLATFORM_FAIRNESS_KEY);
    const long = `${'a'.repeat(100)}-1`;
    const other = `${'a'.repeat(100)}-2`;
    expect(Buffer.byteLength(fairnessKeyFor(long))).toBeLessThanOrEqual(64);
    expect(fairnessKeyFor(long)).not.toBe(fairnessKeyFor(other));
  });

  it('is turned on in both embedded servers, as booleans Temporal parses', () => {
    expect(dynamicConfigYaml()).toContain('matching.enableFairness:\n  - value: true\n');
    expect(devServerArgs()).toEqual(expect.arrayContaining(['matching.useNewMatcher=true', 'matching.enableFairness=true']));
  });
});

describe('fair shares of the workers', () => {
  const limits = effectiveLimits(DEFAULTS, null);
  const counts = (mine: number, total: number, otherWeights: number) => ({ mine, total, otherWeights, otherTenants: otherWeights });

  it('gives each busy tenant its weighted part of the capacity, at least one job', () => {
    expect(fairShare(40, 1, { otherWeights: 0 })).toBe(40);
    expect(fairShare(40, 1, { otherWeights: 1 })).toBe(20);
    expect(fairShare(40, 2, { otherWeights: 2 })).toBe(20);
    expect(fairShare(40, 3, { otherWeights: 1 })).toBe(30);
    expect(fairShare(4, 1, { otherWeights: 10 })).toBe(1);
  });

  it('lets a tenant use idle capacity past its share, and holds it past its share once the capacity is used', () => {
    expect(roomFor('acme', limits, 40, counts(30, 30, 1)).room).toBe(10);
    const full = roomFor('acme', limits, 40, counts(30, 40, 1));
    expect(full.room).toBe(0);
    expect(full.reason).toMatch(/tenant acme has its fair share of the workers \(30 of 20 running, 1 other tenant/);
    // A tenant under its share starts even when the capacity is used: the quiet one is never held by the busy one.
    expect(roomFor('quiet', limits, 40, counts(0, 40, 1)).room).toBe(20);
  });

  it('keeps the explicit cap, and no shares at a capacity of 0', () => {
    const capped = effectiveLimits(DEFAULTS, { max_running_jobs: 2 });
    expect(roomFor('acme', capped, 40, counts(2, 2, 0))).toMatchObject({
      room: 0,
      reason: expect.stringContaining('max_running_jobs (2)'),
    });
    expect(roomFor('acme', limits, 0, counts(500, 500, 3)).room).toBe(Number.MAX_SAFE_INTEGER);
  });
});
