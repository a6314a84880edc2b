import { Harness } from '../../../helpers/harness';
import { activeModel, addVersion, tenantWithDomain, initService, FEATURES } from '../../../helpers/fixtures';

const contracts = (threshold: object) => ({
  inference: { input_schema: { type: 'object', properties: { threshold }, required: ['threshold'] } },
});

describe('compatibility reports', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  async function subscribe(source: string, target: string, input: object) {
    const res = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'stored', input },
    });
    expect(res.status).toBe(201);
    return res.body.subscription_id as string;
  }

  it('reports a contract change that narrows a type as breaking for the subscription whose stored payload it invalidates', async () => {
    const target = await activeModel(h, { handler_contracts: contracts({ type: 'number' }) });
    const source = await activeModel(h);
    const fractional = await subscribe(source, target, { threshold: 0.5 });
    const whole = await subscribe(source, target, { threshold: 2 });
    const narrowed = { handler_contracts: contracts({ type: 'integer' }) };

    // Previewed first: the same report, and the contract is unchanged afterwards.
    const dry = await h.api('PUT', `/v2/models/${target}?dry_run=true`, { body: narrowed });
    expect(dry.status).toBe(200);
    expect((await h.api('GET', `/v2/models/${target}`)).body.model.handler_contracts).toEqual(contracts({ type: 'number' }));

    const res = await h.api('PUT', `/v2/models/${target}`, { body: narrowed });
    expect(res.status).toBe(200);
    const report = res.body.compatibility;
    expect(dry.body.compatibility).toEqual(report);
    expect(report).toMatchObject({ model_id: target, subject: 'contracts', compatible: false });
    expect(report.changes).toEqual([
      {
        path: 'inference.input_schema.threshold',
        kind: 'type_narrowed',
        breaking: true,
        reason: 'inference.input_schema.threshold: type narrowed (number → integer)',
      },
    ]);
    const byId = Object.fromEntries(report.subscriptions.map((s: any) => [s.subscription_id, s]));
    expect(byId[fractional].compatible).toBe(false);
    expect(byId[fractional].reasons).toEqual([
      'stored input no longer satisfies the inference input_schema: /threshold must be integer',
      'inference.input_schema.threshold: type narrowed (number → integer)',
    ]);
    expect(byId[whole]).toMatchObject({ compatible: true, reasons: [] });
  });

  it('reports a type-widening contract change as compatible', async () => {
    const target = await activeModel(h, { handler_contracts: contracts({ type: 'integer' }) });
    const source = await activeModel(h);
    await subscribe(source, target, { threshold: 2 });
    const res = await h.api('PUT', `/v2/models/${target}`, { body: { handler_contracts: contracts({ type: 'number' }) } });
    expect(res.body.compatibility.compatible).toBe(true);
    expect(res.body.compatibility.changes.map((c: any) => c.kind)).toEqual(['type_widened']);
  });

  it('reports the trap at assignment: a version born without a freeze, assigned as default of a domain that defines features', async () => {
    const modelId = await activeModel(h, { features: [] });
    const { base } = await tenantWithDomain(h);
    const dry = await h.api('POST', `${base}/model/assign?dry_run=true`, { body: { model_id: modelId } });
    expect(dry.status).toBe(200);
    expect(dry.body.compatibility.compatible).toBe(false);
    expect(dry.body.compatibility.feature_mismatches.map((m: any) => [m.feature, m.kind])).toEqual([
      ['seats', 'missing_from_freeze'],
      ['cabin', 'missing_from_freeze'],
      ['tags', 'missing_from_freeze'],
    ]);

    const real = await h.api('POST', `${base}/model/assign`, { body: { model_id: modelId } });
    expect(real.status).toBe(200);
    expect(real.body.compatibility).toEqual(dry.body.compatibility);
    const put = await h.api('PUT', `${base}/assignments/default`, { body: { model_id: modelId, model_version: '1' } });
    expect(put.body.compatibility.feature_mismatches).toEqual(dry.body.compatibility.feature_mismatches);
    expect(put.body.compatibility.feature_mismatches[0].message).toContain('is not defined by the feature contract');

    // What the report warned about: every init that sends a domain feature fails.
    const init = await initService(h, base, 'svc-trap', { seats: 3 });
    expect(init.status).toBe(422);
    expect(init.body.message).toContain('feature "seats" is not defined by the feature contract');
  });

  it('reports a matching freeze as compatible at assignment', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h);
    const res = await h.api('POST', `${base}/model/assign`, { body: { model_id: modelId } });
    expect(res.body.compatibility).toEqual({ compatible: true, replaces: null, changes: [], feature_mismatches: [] });
  });

  it('reports a new version against every active assignment (domain and service scope), on create and by the read route', async () => {
    const modelId = await activeModel(h);
    const { clientId, domainId, base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-c', { seats: 4 })).status).toBe(202);
    const override = await h.api('PUT', `${base}/service/svc-c/assignments/ranker`, { body: { model_id: modelId, model_version: '1' } });
    expect(override.status).toBe(201);
    const v2 = [
      { name: 'seats', json_schema: { type: 'integer', minimum: 1, maximum: 500 }, mandatory: true },
      { name: 'cabin', json_schema: { type: 'string', enum: ['economy'], default: 'economy' }, mandatory: true },
      { name: 'meal', json_schema: { type: 'string' }, mandatory: true },
    ];
    const created = await h.api('POST', `/v2/models/${modelId}/versions`, { body: { version: '2', features: v2 } });
    expect(created.status).toBe(201);
    const report = created.body.compatibility;
    expect(report).toMatchObject({ model_id: modelId, subject: 'version', model_version: '2', compatible: false });
    expect(report.assignments.map((a: any) => [a.client_id, a.domain_id, a.service_id, a.assignment_key, a.compatible])).toEqual([
      [clientId, domainId, null, 'default', false],
      [clientId, domainId, 'svc-c', 'ranker', false],
    ]);
    expect(report.assignments[0].changes.map((c: any) => c.reason)).toEqual([
      'cabin: enum value "business" removed',
      'tags: property removed',
      'meal: property added',
      'meal: new required field',
    ]);
    const read = await h.api('GET', `/v2/models/${modelId}/compatibility?model_version=2`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(report);
    expect((await h.api('GET', `/v2/models/${modelId}/compatibility?model_version=nope`)).status).toBe(404);
  });

  it('reports at assignment what changes from the version it replaces', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    await addVersion(h, modelId, '2', [
      FEATURES[0],
      { ...FEATURES[1], json_schema: { type: 'string', enum: ['economy', 'business'], default: 'business' } },
      FEATURES[2],
    ]);
    const res = await h.api('PUT', `${base}/assignments/default?dry_run=true`, { body: { model_id: modelId, model_version: '2' } });
    expect(res.status).toBe(201);
    expect(res.body.compatibility.replaces).toEqual({ model_id: modelId, model_version: '1' });
    expect(res.body.compatibility.changes).toEqual([
      { path: 'cabin', kind: 'default_changed', breaking: true, reason: 'cabin: default changed ("economy" → "business")' },
    ]);
  });

  it('reports where new domain features disagree with the default version freeze', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    const res = await h.api('PUT', `${base}/features`, {
      body: { features: [...FEATURES, { name: 'wifi', json_schema: { type: 'boolean' }, mandatory: false }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.feature_mismatches.map((m: any) => [m.feature, m.kind])).toEqual([['wifi', 'missing_from_freeze']]);
  });
});
