import { Harness } from '../../../helpers/harness';
import { activeModel, eventually, initService, tenantWithDomain } from '../../../helpers/fixtures';
import { temporalScheduleIdFor } from '../../../../src/domain/ports/schedule-gateway.port';

/** A rate so slow that no token comes back while a test runs: each bucket holds exactly its burst. */
const NO_REFILL = 0.01;

/**
 * Every job a tenant causes counts against its limits (docs/fairness.md), the jobs of its schedules included: a
 * backfill or trigger its bucket cannot hold is refused when asked, and a fire that finds the bucket empty waits for
 * a token instead of starting its job.
 */
describe("a tenant's schedules and its job bucket", () => {
  let h: Harness;
  let modelId: string;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, env: { SCHEDULE_MIN_INTERVAL_SECONDS: '1' } });
    modelId = await activeModel(h);
  });
  afterAll(() => h.stop());

  async function limitedTenantWithService(serviceId: string) {
    const t = await tenantWithDomain(h, { modelId });
    expect((await initService(h, t.base, serviceId, { seats: 3 })).status).toBe(202);
    // A new policy has a bucket of its own, full: exactly `burst` jobs fit from here on.
    expect((await h.api('PUT', `/v2/clients/${t.clientId}`, { body: { limits: { jobs_per_second: NO_REFILL, burst: 2 } } })).status).toBe(
      200,
    );
    return t;
  }

  const jobsOf = async (scheduleId: string) => (await h.api('GET', `/v2/jobs?schedule_id=${scheduleId}&limit=200`)).body.items as any[];

  it('refuses a backfill larger than the burst (422) and a trigger past the bucket (429), and counts backfilled fires', async () => {
    const { clientId, domainId } = await limitedTenantWithService('SVC-B');
    const path = `/v2/clients/${clientId}/schedules`;
    const created = await h.api('POST', path, {
      body: { domain_id: domainId, service_id: 'SVC-B', spec: { intervals: [{ every_seconds: 600 }] }, paused: true },
    });
    expect(created.status).toBe(201);
    const one = `${path}/${created.body.schedule_id}`;
    const end = new Date(Math.floor(Date.now() / 600_000) * 600_000 - 600_000);
    const range = (fires: number) => ({ start_at: new Date(end.getTime() - fires * 600_000).toISOString(), end_at: end.toISOString() });

    const tooMany = await h.api('POST', `${one}/backfill`, { body: range(30) });
    expect([tooMany.status, tooMany.body.message]).toEqual([422, expect.stringContaining('30 jobs, more than tenant')]);

    const fits = await h.api('POST', `${one}/backfill`, { body: range(2) });
    expect(fits.status).toBe(202);
    // Under buffer_all the two fires run one after the other, each waiting for its job to end.
    await eventually(async () => (await jobsOf(created.body.schedule_id)).length === 2, 60000, 'the two backfilled jobs');

    // The two fires took the bucket's two tokens: a trigger is refused with the time until the next one.
    const trigger = await h.api('POST', `${one}/trigger`, { body: {} });
    expect(trigger.status).toBe(429);
    expect(trigger.body.message).toMatch(/^jobs_per_second exceeded for tenant .*: the trigger starts 1 jobs and 0 fit now/);
    expect(Number(trigger.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const again = await h.api('POST', `${one}/backfill`, { body: range(1) });
    expect(again.status).toBe(429);
    expect((await h.api('PUT', `/v2/clients/${clientId}`, { body: { limits: null } })).status).toBe(200);
    await h.api('DELETE', one);
  }, 90000);

  it("holds a fire while the tenant's bucket is empty: the schedule starts no job past the tenant's rate", async () => {
    const { clientId, domainId, base } = await limitedTenantWithService('SVC-F');
    // The tenant's own inits take both tokens.
    for (const id of ['SVC-1', 'SVC-2']) expect((await initService(h, base, id, { seats: 1 })).status).toBe(202);
    expect((await initService(h, base, 'SVC-3', { seats: 1 })).status).toBe(429);
    const path = `/v2/clients/${clientId}/schedules`;
    const created = await h.api('POST', path, {
      body: { domain_id: domainId, service_id: 'SVC-F', spec: { intervals: [{ every_seconds: 1 }] } },
    });
    expect(created.status).toBe(201);
    const scheduleId = created.body.schedule_id;
    // The first fire asks for a token that is 100 s away: its step is refused with TenantRateLimited and retried
    // when the token is due, so the fire waits instead of starting its job, and no run is recorded skipped.
    const waiting = await eventually(
      async () => {
        const running = (await h.temporal.schedule.getHandle(temporalScheduleIdFor(scheduleId)).describe()).info.runningActions[0];
        if (!running) return false;
        const fire = await h.temporal.workflow.getHandle(running.workflow.workflowId).describe();
        const step = fire.raw.pendingActivities?.[0];
        return step?.lastFailure?.applicationFailureInfo?.type === 'TenantRateLimited' && step;
      },
      30000,
      'the fire to wait for a token',
    );
    expect(waiting.lastFailure?.message).toMatch(/^jobs_per_second exceeded for tenant /);
    expect(await jobsOf(scheduleId)).toEqual([]);
    const read = await h.api('GET', `${path}/${scheduleId}`);
    expect(read.body.recent_runs).toEqual([]);
    await h.api('DELETE', `${path}/${scheduleId}`);
  }, 90000);
});
