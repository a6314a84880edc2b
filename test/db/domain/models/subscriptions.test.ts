import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel } from '../../../helpers/fixtures';

const CONTRACT = {
  inference: {
    input_schema: { type: 'object', required: ['threshold'], properties: { threshold: { type: 'number' } }, additionalProperties: false },
  },
};

describe('event subscriptions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  const create = (source: string, body: Record<string, unknown>) =>
    h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_action: 'inference', label: 'l', ...body },
    });

  it('creates a subscription and returns every field', async () => {
    const source = await activeModel(h);
    const target = await activeModel(h, { handler_contracts: CONTRACT });
    const res = await create(source, { target_model_id: target, input_source: 'stored', input: { threshold: 0.4 }, label: 'rescore' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      subscription_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      source_model_id: source,
      target_model_id: target,
      trigger_event: 'inference_complete',
      target_action: 'inference',
      input_source: 'stored',
      input: { threshold: 0.4 },
      label: 'rescore',
      status: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      created_by: PLATFORM_CLIENT,
      status_changed_by: null,
      status_changed_at: null,
    });
  });

  it('refuses a stored input that does not match the target input schema with 422', async () => {
    const source = await activeModel(h);
    const target = await activeModel(h, { handler_contracts: CONTRACT });
    const res = await create(source, { target_model_id: target, input_source: 'stored', input: { threshold: 'high' } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('input_schema') });
  });

  it('needs input for stored payloads, a known target, and known enum values', async () => {
    const source = await activeModel(h);
    const target = await activeModel(h);
    expect((await create(source, { target_model_id: target, input_source: 'stored' })).status).toBe(400);
    expect(
      (await create(source, { target_model_id: target, input_source: 'stored', input: {}, trigger_event: 'deploy_complete' })).status,
    ).toBe(400);
    expect((await create(source, { target_model_id: uid('nope'), input_source: 'trigger_output' })).status).toBe(422);
    expect(
      (
        await h.api('POST', `/v2/models/${uid('nope')}/event-subscriptions`, {
          body: {
            trigger_event: 'inference_complete',
            target_model_id: target,
            target_action: 'inference',
            input_source: 'trigger_output',
          },
        })
      ).status,
    ).toBe(404);
  });

  it('lists, reads, disables with DELETE, and re-activates only while the stored input still fits', async () => {
    const source = await activeModel(h);
    const target = await activeModel(h, { handler_contracts: CONTRACT });
    const sub = (await create(source, { target_model_id: target, input_source: 'stored', input: { threshold: 1 } })).body;
    const other = (await create(source, { target_model_id: target, input_source: 'trigger_output' })).body;
    expect((await h.api('GET', `/v2/models/${source}/event-subscriptions`)).body.items.map((s: any) => s.subscription_id)).toEqual([
      other.subscription_id,
      sub.subscription_id,
    ]);
    const deleted = await h.api('DELETE', `/v2/models/${source}/event-subscriptions/${sub.subscription_id}`);
    expect(deleted.body.status).toBe('disabled');
    expect((await h.api('GET', `/v2/models/${source}/event-subscriptions?status=disabled`)).body.items).toHaveLength(1);
    await h.api('PUT', `/v2/models/${target}`, {
      body: { handler_contracts: { inference: { input_schema: { type: 'object', required: ['level'] } } } },
    });
    const refused = await h.api('PUT', `/v2/models/${source}/event-subscriptions/${sub.subscription_id}/new_status`, {
      body: { status: 'active' },
    });
    expect(refused.status).toBe(422);
    expect((await h.api('GET', `/v2/models/${target}/event-subscriptions/${sub.subscription_id}`)).status).toBe(404);
  });

  it('refuses an identical active subscription with 409 naming the existing one, and its re-activation while the twin is active', async () => {
    const source = await activeModel(h);
    const target = await activeModel(h, { handler_contracts: CONTRACT });
    const body = { target_model_id: target, input_source: 'stored', input: { threshold: 0.5 } };
    const first = await create(source, body);
    expect(first.status).toBe(201);
    const again = await create(source, { ...body, label: 'another label' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, message: expect.stringContaining(first.body.subscription_id) });
    // Another input, or another source of input, is another subscription.
    expect((await create(source, { ...body, input: { threshold: 0.6 } })).status).toBe(201);
    expect((await create(source, { target_model_id: target, input_source: 'trigger_output' })).status).toBe(201);
    await h.api('DELETE', `/v2/models/${source}/event-subscriptions/${first.body.subscription_id}`);
    const second = await create(source, body);
    expect(second.status).toBe(201);
    const reactivated = await h.api('PUT', `/v2/models/${source}/event-subscriptions/${first.body.subscription_id}/new_status`, {
      body: { status: 'active' },
    });
    expect(reactivated.status).toBe(409);
    expect(reactivated.body.message).toContain(second.body.subscription_id);
    const active = (await h.api('GET', `/v2/models/${source}/event-subscriptions?status=active`)).body.items;
    expect(active).toHaveLength(3);
  });
});
