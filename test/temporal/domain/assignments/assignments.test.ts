import { Harness, uid } from '../../../helpers/harness';
import { activeModel, addVersion, tenantWithDomain, initService, FEATURES } from '../../../helpers/fixtures';

/** v2 of the model makes `cabin` a required integer: services initialized with cabin "business" no longer fit. */
const V2_FEATURES = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true },
  { name: 'cabin', json_schema: { type: 'integer', enum: [1, 2] }, mandatory: true },
];

describe('assignments', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  async function setup() {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    return { modelId, ...t };
  }
  const put = (base: string, key: string, body: unknown) => h.api('PUT', `${base}/assignments/${key}`, { body });

  it('archives the previous revision on every upsert and keeps the history newest first', async () => {
    const { modelId, base } = await setup();
    const first = await put(base, 'ranker', { model_id: modelId, model_version: '1', role: 'primary', settings: { k: 1 } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      assignment_key: 'ranker',
      model_id: modelId,
      model_version: '1',
      status: 'active',
      role: 'primary',
      settings: { k: 1 },
      metadata: {},
    });
    const second = await put(base, 'ranker', { model_id: modelId, model_version: '1', settings: { k: 2 } });
    expect(second.body.assignment_id).not.toBe(first.body.assignment_id);
    expect((await h.api('GET', `${base}/assignments/ranker`)).body.assignment_id).toBe(second.body.assignment_id);
    const history = await h.api('GET', `${base}/assignments?status=all`);
    const ranker = history.body.items.filter((a: any) => a.assignment_key === 'ranker');
    expect(ranker.map((a: any) => [a.assignment_id, a.status])).toEqual([
      [second.body.assignment_id, 'active'],
      [first.body.assignment_id, 'archived'],
    ]);
    const archived = await h.api('GET', `${base}/assignments?status=archived`);
    expect(archived.body.items.map((a: any) => a.assignment_id)).toEqual([first.body.assignment_id]);
    const active = await h.api('GET', `${base}/assignments`);
    expect(active.body.items.map((a: any) => a.assignment_key).sort()).toEqual(['default', 'ranker']);
  });

  it('upserts through the collection POST with the key in the body', async () => {
    const { modelId, base } = await setup();
    const res = await h.api('POST', `${base}/assignments`, {
      body: { assignment_key: 'explainer', model_id: modelId, model_version: '1' },
    });
    expect(res.status).toBe(201);
    expect(res.body.assignment_key).toBe('explainer');
    expect((await h.api('POST', `${base}/assignments`, { body: { model_id: modelId, model_version: '1' } })).status).toBe(400);
  });

  it('ends many concurrent upserts of one key with exactly one active revision', async () => {
    const { modelId, base } = await setup();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => put(base, 'hot', { model_id: modelId, model_version: '1', metadata: { i } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const all = await h.api('GET', `${base}/assignments?status=all&limit=50`);
    const hot = all.body.items.filter((a: any) => a.assignment_key === 'hot');
    expect(hot).toHaveLength(12);
    expect(hot.filter((a: any) => a.status === 'active')).toHaveLength(1);
  });

  it('retires a capability with status archived', async () => {
    const { modelId, base } = await setup();
    await put(base, 'old', { model_id: modelId, model_version: '1' });
    const retired = await put(base, 'old', { model_id: modelId, model_version: '1', status: 'archived' });
    expect(retired.body.status).toBe('archived');
    expect((await h.api('GET', `${base}/assignments/old`)).status).toBe(404);
    const run = await h.api('POST', `${base}/assignments/old/run`, { body: { input: {} } });
    expect(run.status).toBe(422);
    expect(run.body.message).toContain('archived');
  });

  it('refuses versions that do not exist or are not active with 422', async () => {
    const { modelId, base } = await setup();
    await addVersion(h, modelId, '2', FEATURES, false);
    const pending = await put(base, 'x', { model_id: modelId, model_version: '2' });
    expect(pending.status).toBe(422);
    expect(pending.body).toEqual({ success: false, message: expect.stringContaining('pending') });
    expect((await put(base, 'x', { model_id: modelId, model_version: '7' })).status).toBe(422);
    expect((await put(base, 'x', { model_id: uid('nope'), model_version: '1' })).status).toBe(422);
  });

  describe('the domain default assignment and the freeze', () => {
    it('is blocked by non-departed services whose provided features break the new freeze', async () => {
      const { modelId, base } = await setup();
      expect((await initService(h, base, 'svc-a', { seats: 10, cabin: 'business' })).status).toBe(202);
      expect((await initService(h, base, 'svc-b', { seats: 20 })).status).toBe(202);
      await addVersion(h, modelId, '2', V2_FEATURES);
      const res = await put(base, 'default', { model_id: modelId, model_version: '2' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: expect.stringContaining('2 non-departed service(s)'),
        blocking_services: [
          { service_id: 'svc-a', feature: 'cabin', value: 'business' },
          { service_id: 'svc-b', feature: 'cabin', value: null },
        ],
      });
      expect((await h.api('GET', `${base}/assignments/default`)).body.model_version).toBe('1');
    });

    it('is unblocked by service_updates applied in the same transaction, with resolved features recomputed', async () => {
      const { modelId, base } = await setup();
      await initService(h, base, 'svc-a', { seats: 10, cabin: 'business' });
      await addVersion(h, modelId, '2', V2_FEATURES);
      const res = await put(base, 'default', {
        model_id: modelId,
        model_version: '2',
        service_updates: [{ service_id: 'svc-a', static_features: { cabin: 2 } }],
      });
      expect(res.status).toBe(201);
      const svc = (await h.api('GET', `${base}/service/svc-a`)).body;
      expect(svc.provided_features).toEqual({ seats: 10, cabin: 2 });
      expect(svc.resolved_features).toEqual({ seats: 10, cabin: 2 });
    });

    it('writes nothing when a service_updates entry names an unknown or departed service', async () => {
      const { modelId, base } = await setup();
      await initService(h, base, 'svc-a', { seats: 10, cabin: 'business' });
      await initService(h, base, 'gone', { seats: 1 }, new Date(Date.now() - 3600000).toISOString());
      await addVersion(h, modelId, '2', V2_FEATURES);
      for (const serviceId of ['nobody', 'gone']) {
        const res = await put(base, 'default', {
          model_id: modelId,
          model_version: '2',
          service_updates: [
            { service_id: 'svc-a', static_features: { cabin: 1 } },
            { service_id: serviceId, static_features: { cabin: 1 } },
          ],
        });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ success: false, message: expect.stringContaining(serviceId) });
      }
      expect((await h.api('GET', `${base}/service/svc-a`)).body.provided_features).toEqual({ seats: 10, cabin: 'business' });
      expect((await h.api('GET', `${base}/assignments/default`)).body.model_version).toBe('1');
    });

    it('is not blocked by departed services', async () => {
      const { modelId, base } = await setup();
      await initService(h, base, 'gone', { seats: 1, cabin: 'business' }, new Date(Date.now() - 3600000).toISOString());
      await addVersion(h, modelId, '2', V2_FEATURES);
      expect((await put(base, 'default', { model_id: modelId, model_version: '2' })).status).toBe(201);
    });

    it('is set by model/assign to the newest active version and returns the Domain', async () => {
      const { modelId, base, domainId, clientId } = await setup();
      await addVersion(h, modelId, '2', FEATURES);
      await addVersion(h, modelId, '3', FEATURES, false);
      const res = await h.api('POST', `${base}/model/assign`, { body: { model_id: modelId } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ client_id: clientId, domain_id: domainId, status: 'active' });
      expect((await h.api('GET', `${base}/assignments/default`)).body.model_version).toBe('2');
      const pendingOnly = (
        await h.api('POST', '/v2/models', {
          body: {
            name: 'p',
            description: '',
            metadata: {},
            handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
          },
        })
      ).body.model.id;
      expect((await h.api('POST', `${base}/model/assign`, { body: { model_id: pendingOnly } })).status).toBe(422);
      expect((await h.api('POST', `${base}/model/assign`, { body: { model_id: uid('nope') } })).status).toBe(422);
    });

    it('refuses service_updates on any other key', async () => {
      const { modelId, base } = await setup();
      const res = await put(base, 'ranker', {
        model_id: modelId,
        model_version: '1',
        service_updates: [{ service_id: 'x', static_features: {} }],
      });
      expect(res.status).toBe(422);
    });
  });

  describe('service-scoped assignments', () => {
    it('override the domain assignment of the same key in the effective view', async () => {
      const { modelId, base } = await setup();
      await initService(h, base, 'svc', { seats: 2 });
      const other = await activeModel(h);
      await put(base, 'ranker', { model_id: modelId, model_version: '1' });
      const own = await h.api('PUT', `${base}/service/svc/assignments/ranker`, { body: { model_id: other, model_version: '1' } });
      expect(own.status).toBe(201);
      expect(own.body).toMatchObject({ service_id: 'svc', model_id: other });
      const effective = await h.api('GET', `${base}/service/svc/effective-assignments`);
      const byKey = Object.fromEntries(effective.body.items.map((a: any) => [a.assignment_key, a.model_id]));
      expect(byKey).toEqual({ default: modelId, ranker: other });
      expect(effective.body.next_cursor).toBeNull();
      expect((await h.api('GET', `${base}/service/svc/assignments`)).body.items).toHaveLength(1);
    });

    it('page the effective view by key like every other list', async () => {
      const { modelId, base } = await setup();
      await initService(h, base, 'svc', { seats: 2 });
      for (const key of ['b', 'a', 'c']) await put(base, key, { model_id: modelId, model_version: '1' });
      const seen: string[] = [];
      let cursor: string | null = '';
      do {
        const page: any = await h.api('GET', `${base}/service/svc/effective-assignments?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.items.map((a: any) => a.assignment_key));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['a', 'b', 'c', 'default']);
    });

    it('answer the spec 422 cases: contract mismatch, domain not active, no model assigned', async () => {
      const { modelId, base, clientId, domainId } = await setup();
      await initService(h, base, 'svc', { seats: 2, cabin: 'business' });
      const strict = await activeModel(h, { features: V2_FEATURES });
      const mismatch = await h.api('PUT', `${base}/service/svc/assignments/x`, { body: { model_id: strict, model_version: '1' } });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.message).toContain('feature contract mismatch');
      await h.api('PUT', `${base}/assignments/default`, { body: { model_id: modelId, model_version: '1', status: 'archived' } });
      const none = await h.api('PUT', `${base}/service/svc/assignments/x`, { body: { model_id: modelId, model_version: '1' } });
      expect(none.status).toBe(422);
      expect(none.body.message).toContain('no model assigned');
      await h.api('PUT', `/v2/clients/${clientId}/domains/${domainId}/new_status`, { body: { status: 'not_ready' } });
      const inactive = await h.api('PUT', `${base}/service/svc/assignments/x`, { body: { model_id: modelId, model_version: '1' } });
      expect(inactive.status).toBe(422);
      expect(inactive.body.message).toContain('not active');
      expect((await h.api('PUT', `${base}/service/nobody/assignments/x`, { body: { model_id: modelId, model_version: '1' } })).status).toBe(
        404,
      );
    });
  });
});
