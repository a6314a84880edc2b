import { Harness } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually } from '../../../helpers/fixtures';
import { parseSamples, valueOf } from '../../../helpers/prometheus';

const MANUAL = { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } };

/** A tenant's running-job cap (docs/fairness.md, "Concurrency caps"). */
describe('max_running_jobs', () => {
  let h: Harness;
  let modelId: string;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, releaser: true });
    modelId = await activeModel(h, { handlers: MANUAL });
  });
  afterAll(() => h.stop());

  const job = async (jobId: string) => (await h.api('GET', `/v2/jobs/${jobId}`)).body;
  const statusIs = (jobId: string, status: string) => async () => ((await job(jobId)).status === status ? true : undefined);
  const complete = (jobId: string) =>
    h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, { body: { status: 'success', output: {} } });

  it("holds a capped tenant's extra job as pending while another tenant's job runs at once, and starts it when a slot frees", async () => {
    const capped = await tenantWithDomain(h, { modelId });
    const other = await tenantWithDomain(h, { modelId });
    await h.api('PUT', `/v2/clients/${capped.clientId}`, { body: { limits: { max_running_jobs: 1 } } });

    const first = (await initService(h, capped.base, 'first', { seats: 1 })).body.job_id;
    await eventually(statusIs(first, 'running'), 20000, 'the first job running');
    const extra = await initService(h, capped.base, 'extra', { seats: 1 });
    expect(extra.status).toBe(202);
    const held = await job(extra.body.job_id);
    expect(held).toMatchObject({ status: 'pending', queued_reason: expect.stringContaining('max_running_jobs (1)') });

    // Another tenant is not held back by it: its job runs at once, while the capped tenant's extra job still waits.
    const others = (await initService(h, other.base, 'free', { seats: 1 })).body.job_id;
    await eventually(statusIs(others, 'running'), 20000, "the other tenant's job running");
    expect(await job(extra.body.job_id)).toMatchObject({ status: 'pending', queued_reason: expect.any(String) });
    expect((await h.api('GET', `/v2/jobs?client_id=${capped.clientId}&status=pending`)).body.items).toHaveLength(1);

    expect((await complete(first)).status).toBe(200);
    await eventually(statusIs(extra.body.job_id, 'running'), 20000, 'the held job running once the first finished');
    expect((await job(extra.body.job_id)).queued_reason).toBeNull();
    const samples = parseSamples((await h.api('GET', '/metrics', { token: null })).body);
    for (const name of ['mos_jobs_queued_total', 'mos_jobs_released_total'])
      expect(valueOf(samples, name, { trigger: 'service_init', tenant: 'custom' })).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(samples, 'mos_job_schedule_to_start_seconds_count', { trigger: 'service_init', tenant: 'default' }),
    ).toBeGreaterThanOrEqual(1);
    await complete(extra.body.job_id);
    await complete(others);
  });

  it('starts held jobs highest priority first, then oldest', async () => {
    const t = await tenantWithDomain(h, { modelId });
    await h.api('PUT', `/v2/clients/${t.clientId}`, { body: { limits: { max_running_jobs: 1 } } });
    const running = (await initService(h, t.base, 'running', { seats: 1 })).body.job_id;
    await eventually(statusIs(running, 'running'), 20000, 'the first job running');
    const start = async (serviceId: string, priority: number) =>
      (
        await h.api('POST', `${t.base}/service/init`, {
          body: { service_id: serviceId, departure_datetime: '2031-01-01T00:00:00Z', static_features: { seats: 1 }, priority },
        })
      ).body.job_id as string;
    const low = await start('low', 5);
    const high = await start('high', 1);
    expect((await job(high)).priority).toBe(1);

    await complete(running);
    await eventually(statusIs(high, 'running'), 20000, 'the high-priority held job running');
    expect((await job(low)).status).toBe('pending');
    await complete(high);
    await eventually(statusIs(low, 'running'), 20000, 'the low-priority held job running');
    await complete(low);
  });

  it('counts cascade jobs against the tenant of their source job', async () => {
    const target = await activeModel(h, { handlers: MANUAL });
    // Two subscriptions of the same target: their inputs differ (an identical second one is refused).
    for (const label of ['a', 'b']) {
      const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
        body: {
          trigger_event: 'inference_complete',
          target_model_id: target,
          target_action: 'inference',
          input_source: 'stored',
          input: { label },
          label,
        },
      });
      expect(sub.status).toBe(201);
    }
    const t = await tenantWithDomain(h, { modelId });
    await h.api('PUT', `/v2/clients/${t.clientId}`, { body: { limits: { max_running_jobs: 1 } } });
    const source = (await initService(h, t.base, 'source', { seats: 1 })).body.job_id;
    await eventually(statusIs(source, 'running'), 20000, 'the source job running');
    const done = await complete(source);
    const [a, b] = done.body.triggered_events.map((e: { job_id: string }) => e.job_id);
    // One cascade takes the slot the source freed; the other waits for it.
    const started = await eventually(
      async () => {
        const jobs = [await job(a), await job(b)];
        return jobs.some((j) => j.status === 'running') ? jobs : undefined;
      },
      20000,
      'a cascade job running',
    );
    const [runningOne, heldOne] = started[0].status === 'running' ? started : [started[1], started[0]];
    expect(heldOne).toMatchObject({ status: 'pending', queued_reason: expect.any(String) });
    await h.api('POST', `/v2/models/${target}/versions/1/jobs/${runningOne.job_id}/complete`, { body: { status: 'success', output: {} } });
    await eventually(statusIs(heldOne.job_id, 'running'), 20000, 'the held cascade job running');
    await h.api('POST', `/v2/models/${target}/versions/1/jobs/${heldOne.job_id}/complete`, { body: { status: 'success', output: {} } });
  });
});
