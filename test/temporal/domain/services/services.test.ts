import { Harness } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../../../helpers/fixtures';

describe('services', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  async function setup(options: { active?: boolean; assign?: boolean } = {}) {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { active: options.active, modelId: options.assign === false ? undefined : modelId });
    return { modelId, ...t };
  }

  describe('init', () => {
    it('stores provided features as sent, resolves defaults and starts an inference job', async () => {
      const { base, modelId, clientId } = await setup();
      const departure = '2030-01-02T03:04:05.000Z';
      const res = await initService(h, base, 'LH1', { seats: 120 }, departure);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ service_id: 'LH1', job_id: expect.any(String), job_url: expect.any(String) });
      const svc = (await h.api('GET', `${base}/service/LH1`)).body;
      expect(svc).toMatchObject({
        service_id: 'LH1',
        status: 'in_progress',
        departure_datetime: departure,
        provided_features: { seats: 120 },
        resolved_features: { seats: 120, cabin: 'economy', tags: [] },
      });
      const job = (await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${res.body.job_id}`)).body;
      expect(job).toMatchObject({
        job_type: 'inference',
        trigger: 'service_init',
        client_id: clientId,
        service_id: 'LH1',
        input: { service_id: 'LH1', features: svc.resolved_features },
      });
    });

    it.each([
      ['a missing mandatory feature without default', { cabin: 'business' }, 'feature "seats" is mandatory'],
      ['a value of the wrong type', { seats: 'many' }, 'feature "seats"'],
      ['a value out of range', { seats: 0 }, 'feature "seats"'],
      ['an unknown feature', { seats: 1, wifi: true }, 'feature "wifi" is not defined'],
    ])('refuses %s with 422 and writes nothing', async (_what, features, fragment) => {
      const { base } = await setup();
      const res = await initService(h, base, 'bad', features);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, message: expect.stringContaining('feature contract mismatch') });
      expect(res.body.message).toContain(fragment);
      expect((await h.api('GET', `${base}/service/bad`)).status).toBe(404);
    });

    it('refuses init when the domain is not active or has no model assigned', async () => {
      const inactive = await setup({ active: false });
      expect((await initService(h, inactive.base, 's', { seats: 1 })).body.message).toContain('not active');
      const unassigned = await setup({ assign: false });
      const res = await initService(h, unassigned.base, 's', { seats: 1 });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain('no model assigned');
    });

    it('refuses a malformed body with 400', async () => {
      const { base } = await setup();
      expect((await h.api('POST', `${base}/service/init`, { body: { service_id: 's', static_features: {} } })).status).toBe(400);
      expect(
        (await h.api('POST', `${base}/service/init`, { body: { service_id: 's', departure_datetime: 'tomorrow', static_features: {} } }))
          .status,
      ).toBe(400);
    });

    it('re-initializes an existing service with a new job', async () => {
      const { base } = await setup();
      const first = await initService(h, base, 'again', { seats: 1 });
      const second = await initService(h, base, 'again', { seats: 2 });
      expect(second.status).toBe(202);
      expect(second.body.job_id).not.toBe(first.body.job_id);
      expect((await h.api('GET', `${base}/service/again`)).body.provided_features).toEqual({ seats: 2 });
    });

    it('returns the first job for a repeated Idempotency-Key and changes nothing', async () => {
      const { base } = await setup();
      const body = { service_id: 'idem', departure_datetime: '2030-01-01T00:00:00Z', static_features: { seats: 1 } };
      const headers = { 'Idempotency-Key': 'init-1' };
      const first = await h.api('POST', `${base}/service/init`, { body, headers });
      await h.api('PUT', `${base}/service/idem/new_status`, { body: { status: 'available' } });
      const again = await h.api('POST', `${base}/service/init`, { body, headers });
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      expect((await h.api('GET', `${base}/service/idem`)).body.status).toBe('available');
    });

    it('refuses an Idempotency-Key reused for a different request with 422', async () => {
      const { base } = await setup();
      const headers = { 'Idempotency-Key': 'init-2' };
      const body = { service_id: 'idem', departure_datetime: '2030-01-01T00:00:00Z', static_features: { seats: 1 } };
      expect((await h.api('POST', `${base}/service/init`, { body, headers })).status).toBe(202);
      const other = await h.api('POST', `${base}/service/init`, { body: { ...body, static_features: { seats: 2 } }, headers });
      expect(other.status).toBe(422);
      expect(other.body.message).toContain('Idempotency-Key');
      expect((await h.api('GET', `${base}/service/idem`)).body.provided_features).toEqual({ seats: 1 });
    });

    it('lets concurrent inits with one Idempotency-Key start exactly one job', async () => {
      const { base, clientId } = await setup();
      const body = { service_id: 'race', departure_datetime: '2030-01-01T00:00:00Z', static_features: { seats: 3 } };
      const results = await Promise.all(
        Array.from({ length: 6 }, () => h.api('POST', `${base}/service/init`, { body, headers: { 'Idempotency-Key': 'race-1' } })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(202));
      expect(new Set(results.map((r) => r.body.job_id)).size).toBe(1);
      expect((await h.api('GET', `/v2/clients/${clientId}/jobs`)).body.items).toHaveLength(1);
    });

    it('refuses init for a suspended client', async () => {
      const { base, clientId } = await setup();
      await h.api('PUT', `/v2/clients/${clientId}/new_status`, { body: { status: 'suspended' } });
      const res = await initService(h, base, 's', { seats: 1 });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain('suspended');
      expect((await h.api('GET', `/v2/clients/${clientId}`)).status).toBe(200);
    });
  });

  describe('update', () => {
    it('re-runs inference when the resolved features change', async () => {
      const { base } = await setup();
      await initService(h, base, 'u', { seats: 1 });
      const res = await h.api('PUT', `${base}/service/u`, { body: { static_features: { seats: 2, cabin: 'business' } } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'in_progress',
        provided_features: { seats: 2, cabin: 'business' },
        resolved_features: { seats: 2, cabin: 'business', tags: [] },
        job_id: expect.any(String),
      });
    });

    it('runs nothing when only the departure changes', async () => {
      const { base } = await setup();
      await initService(h, base, 'd', { seats: 1 });
      await h.api('PUT', `${base}/service/d/new_status`, { body: { status: 'available' } });
      const res = await h.api('PUT', `${base}/service/d`, { body: { departure_datetime: '2031-05-05T05:05:05Z' } });
      expect(res.status).toBe(200);
      expect(res.body.job_id).toBeUndefined();
      expect(res.body).toMatchObject({ status: 'available', departure_datetime: '2031-05-05T05:05:05.000Z' });
    });

    it('answers the spec 422 cases and 404 for a missing service', async () => {
      const { base, clientId, domainId } = await setup();
      await initService(h, base, 'x', { seats: 1 });
      expect((await h.api('PUT', `${base}/service/x`, { body: { static_features: { seats: -1 } } })).status).toBe(422);
      await h.api('PUT', `/v2/clients/${clientId}/domains/${domainId}/new_status`, { body: { status: 'not_ready' } });
      expect((await h.api('PUT', `${base}/service/x`, { body: { static_features: { seats: 3 } } })).body.message).toContain('not active');
      expect((await h.api('PUT', `${base}/service/nope`, { body: { static_features: { seats: 3 } } })).status).toBe(404);
      expect((await h.api('PUT', `${base}/service/x`, { body: {} })).status).toBe(400);
    });
  });

  it('enforces the service status transition table', async () => {
    const { base } = await setup();
    await initService(h, base, 's', { seats: 1 });
    const move = (status: string) => h.api('PUT', `${base}/service/s/new_status`, { body: { status } });
    expect((await move('available')).body.status).toBe('available');
    const back = await move('in_progress');
    expect(back.status).toBe(409);
    expect(back.body.message).toContain('allowed: failed, not_found');
    expect((await move('failed')).body.status).toBe('failed');
    expect((await move('not_found')).body.status).toBe('not_found');
    expect((await move('available')).status).toBe(409);
    expect((await move('gone')).status).toBe(400);
    expect((await initService(h, base, 's', { seats: 1 })).status).toBe(202);
  });

  it('lists services filtered by status and departure', async () => {
    const { base } = await setup();
    await initService(h, base, 'future', { seats: 1 });
    await initService(h, base, 'past', { seats: 1 }, '2020-01-01T00:00:00Z');
    await h.api('PUT', `${base}/service/future/new_status`, { body: { status: 'available' } });
    const ids = async (q: string) => (await h.api('GET', `${base}/services${q}`)).body.items.map((s: any) => s.service_id).sort();
    expect(await ids('')).toEqual(['future', 'past']);
    expect(await ids('?departed=true')).toEqual(['past']);
    expect(await ids('?departed=false&status=available')).toEqual(['future']);
    expect((await h.api('GET', `${base}/services?departed=maybe`)).status).toBe(400);
  });

  it('keeps stored services as they are when the domain features are replaced (persist-only)', async () => {
    const { base } = await setup();
    await initService(h, base, 'kept', { seats: 5 });
    const before = (await h.api('GET', `${base}/service/kept`)).body;
    const jobsBefore = (await h.api('GET', `${base.split('/domains')[0]}/jobs`)).body.items.length;
    const res = await h.api('PUT', `${base}/features`, {
      body: { features: [{ name: 'rows', json_schema: { type: 'integer', default: 9 }, mandatory: true }] },
    });
    expect(res.status).toBe(200);
    const after = (await h.api('GET', `${base}/service/kept`)).body;
    expect(after).toEqual(before);
    expect((await h.api('GET', `${base.split('/domains')[0]}/jobs`)).body.items.length).toBe(jobsBefore);
    // Init still follows the assigned version's freeze, not the domain's new definitions.
    expect((await initService(h, base, 'next', { seats: 1 })).status).toBe(202);
  });
});
