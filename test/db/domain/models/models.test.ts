import { Harness, uid } from '../../../helpers/harness';
import { ECHO_HANDLERS, FEATURES } from '../../../helpers/fixtures';

describe('model registry', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  const body = (extra: Record<string, unknown> = {}) => ({
    name: 'scorer',
    description: 'scores',
    metadata: { team: 'ml' },
    handlers: ECHO_HANDLERS,
    ...extra,
  });

  describe('create and read', () => {
    it('creates a model born with a pending first version and returns the envelope', async () => {
      const id = uid('model');
      const res = await h.api('POST', '/v2/models', { body: body({ id, features: FEATURES, version_description: 'first' }) });
      expect(res.status).toBe(201);
      expect(res.body.model).toMatchObject({
        id,
        name: 'scorer',
        description: 'scores',
        metadata: { team: 'ml' },
        handlers: ECHO_HANDLERS,
        handler_contracts: null,
        status: 'pending',
      });
      expect(res.body.version).toMatchObject({ version: '1', description: 'first', status: 'pending', features: FEATURES, metadata: {} });
      expect((await h.api('GET', `/v2/models/${id}`)).body).toEqual(res.body);
    });

    it('assigns a UUIDv7 when no id is given', async () => {
      const res = await h.api('POST', '/v2/models', { body: body() });
      expect(res.status).toBe(201);
      expect(res.body.model.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('answers a duplicate id with 409 and writes nothing', async () => {
      const id = uid('model');
      expect((await h.api('POST', '/v2/models', { body: body({ id }) })).status).toBe(201);
      const dup = await h.api('POST', '/v2/models', { body: body({ id, name: 'other' }) });
      expect(dup.status).toBe(409);
      expect((await h.api('GET', `/v2/models/${id}`)).body.model.name).toBe('scorer');
    });

    it('answers a missing model with 404 and missing required fields with 400', async () => {
      expect((await h.api('GET', `/v2/models/${uid('nope')}`)).status).toBe(404);
      const res = await h.api('POST', '/v2/models', { body: { name: 'x', description: '', handlers: ECHO_HANDLERS } });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('metadata');
    });

    it('lists models filtered by name and status', async () => {
      const name = uid('named');
      const a = (await h.api('POST', '/v2/models', { body: body({ name }) })).body.model.id;
      const b = (await h.api('POST', '/v2/models', { body: body({ name }) })).body.model.id;
      await h.api('PUT', `/v2/models/${b}/versions/1/new_status`, { body: { status: 'active' } });
      const all = await h.api('GET', `/v2/models?name=${name}`);
      expect(all.body.items.map((m: any) => m.id)).toEqual([b, a]);
      const active = await h.api('GET', `/v2/models?name=${name}&status=active`);
      expect(active.body.items.map((m: any) => m.id)).toEqual([b]);
    });
  });

  describe('handlers', () => {
    it.each([
      ['a Lambda ARN that is not one', { type: 'lambda', arn: 'arn:aws:s3:::bucket' }, 'arn'],
      ['a Lambda handler without arn', { type: 'lambda' }, 'arn'],
      ['a bad Lambda qualifier', { type: 'lambda', arn: 'fn', version: 'v 1' }, 'version'],
      ['a container target without a task definition', { type: 'container_task', target: 'cluster-only' }, 'target'],
      ['a container target with a nested cluster', { type: 'container_task', target: 'a/b/c' }, 'target'],
      ['a container target with a bad revision', { type: 'container_task', target: 'c/family:0' }, 'target'],
      ['an unknown handler type', { type: 'k8s_job', name: 'x' }, 'type'],
    ])('refuses %s with a 400 naming the field', async (_what, handler, field) => {
      const res = await h.api('POST', '/v2/models', { body: body({ handlers: { training: ECHO_HANDLERS.training, inference: handler } }) });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('handlers.inference');
      expect(res.body.message).toContain(field);
    });

    it.each([
      ['in_process', { type: 'in_process' }, 'handlers.inference: in_process handler requires name'],
      ['lambda', { type: 'lambda', version: '1' }, 'handlers.inference: lambda handler requires arn'],
      ['container_task', { type: 'container_task' }, 'handlers.inference: container_task handler requires target'],
      [
        'lambda with a field of another kind',
        { type: 'lambda', arn: 'fn', name: 'echo' },
        'handlers.inference: lambda handler does not take name',
      ],
    ])('says what a %s handler lacks, and nothing about the other kinds', async (_kind, handler, message) => {
      const res = await h.api('POST', '/v2/models', { body: body({ handlers: { training: ECHO_HANDLERS.training, inference: handler } }) });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`invalid request body: ${message}`);
    });

    it('names the handler kinds when the type is unknown', async () => {
      const res = await h.api('POST', '/v2/models', {
        body: body({ handlers: { training: ECHO_HANDLERS.training, inference: { type: 'k8s_job' } } }),
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('handlers.inference.type must be one of lambda, container_task, in_process');
    });

    it('accepts all three kinds', async () => {
      const handlers = {
        training: {
          type: 'container_task',
          target: 'ml/trainer:12',
          launch: { launch_type: 'FARGATE', subnets: ['subnet-a'], security_groups: ['sg-1'], container_name: 'main' },
        },
        inference: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:score', version: 'live' },
      };
      expect((await h.api('POST', '/v2/models', { body: body({ handlers }) })).status).toBe(201);
    });

    it('refuses an unknown in-process implementation with a 422 listing the known ones', async () => {
      const res = await h.api('POST', '/v2/models', {
        body: body({ handlers: { training: ECHO_HANDLERS.training, inference: { type: 'in_process', name: 'magic' } } }),
      });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain('handlers.inference.name');
      expect(res.body.message).toContain('echo');
    });

    it('refuses handler contracts that are not JSON Schema 2020-12 with a 422', async () => {
      const res = await h.api('POST', '/v2/models', {
        body: body({ handler_contracts: { inference: { input_schema: { type: 'object', required: 'x' } } } }),
      });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain('handler_contracts.inference.input_schema');
    });
  });

  describe('updates and subscription staleness', () => {
    async function withSubscription(contracts?: unknown) {
      const source = (await h.api('POST', '/v2/models', { body: body(contracts ? { handler_contracts: contracts } : {}) })).body.model.id;
      const target = (await h.api('POST', '/v2/models', { body: body() })).body.model.id;
      const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
        body: {
          trigger_event: 'inference_complete',
          target_model_id: target,
          target_action: 'inference',
          input_source: 'trigger_output',
          label: 'next',
        },
      });
      expect(sub.status).toBe(201);
      return { source, subscriptionId: sub.body.subscription_id };
    }
    const status = async (model: string, sub: string) => (await h.api('GET', `/v2/models/${model}/event-subscriptions/${sub}`)).body.status;

    it('updates description and metadata without touching subscriptions', async () => {
      const { source, subscriptionId } = await withSubscription();
      const res = await h.api('PUT', `/v2/models/${source}`, { body: { description: 'new', metadata: { v: 2 } } });
      expect(res.status).toBe(200);
      expect(res.body.model).toMatchObject({ description: 'new', metadata: { v: 2 } });
      expect(await status(source, subscriptionId)).toBe('active');
    });

    it('marks subscriptions stale when handlers change and no contracts are set', async () => {
      const { source, subscriptionId } = await withSubscription();
      const res = await h.api('PUT', `/v2/models/${source}`, {
        body: { handlers: { ...ECHO_HANDLERS, inference: { type: 'lambda', arn: 'fn' } } },
      });
      expect(res.body.stale_subscriptions).toEqual([subscriptionId]);
      expect(await status(source, subscriptionId)).toBe('stale');
    });

    it('with contracts set, follows contract changes and ignores handler changes', async () => {
      const contracts = { inference: { output_schema: { type: 'object' } } };
      const { source, subscriptionId } = await withSubscription(contracts);
      await h.api('PUT', `/v2/models/${source}`, { body: { handlers: { ...ECHO_HANDLERS, inference: { type: 'lambda', arn: 'fn' } } } });
      expect(await status(source, subscriptionId)).toBe('active');
      await h.api('PUT', `/v2/models/${source}`, {
        body: { handler_contracts: { inference: { output_schema: { type: 'object', required: ['path'] } } } },
      });
      expect(await status(source, subscriptionId)).toBe('stale');
    });

    it('refuses an empty update with 400 and a missing model with 404', async () => {
      const id = (await h.api('POST', '/v2/models', { body: body() })).body.model.id;
      expect((await h.api('PUT', `/v2/models/${id}`, { body: {} })).status).toBe(400);
      expect((await h.api('PUT', `/v2/models/${uid('nope')}`, { body: { description: 'x' } })).status).toBe(404);
    });
  });

  describe('versions and the feature freeze', () => {
    async function model() {
      return (await h.api('POST', '/v2/models', { body: body() })).body.model.id as string;
    }

    it('creates, reads and lists versions newest first', async () => {
      const id = await model();
      const created = await h.api('POST', `/v2/models/${id}/versions`, { body: { version: '2', description: 'more', features: FEATURES } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ model_id: id, version: '2', status: 'pending', features: FEATURES });
      // The create answer adds the compatibility report of the new freeze (no assignment binds the model yet).
      const { compatibility, ...version } = created.body;
      expect(compatibility).toMatchObject({ subject: 'version', model_version: '2', compatible: true, assignments: [] });
      expect((await h.api('GET', `/v2/models/${id}/versions/2`)).body).toEqual(version);
      expect((await h.api('GET', `/v2/models/${id}/versions`)).body.items.map((v: any) => v.version)).toEqual(['2', '1']);
      expect((await h.api('GET', `/v2/models/${id}`)).body.version.version).toBe('2');
      expect((await h.api('GET', `/v2/models/${id}/versions/9`)).status).toBe(404);
    });

    it('answers a duplicate version with 409, invalid features with 422, a missing model with 404', async () => {
      const id = await model();
      expect((await h.api('POST', `/v2/models/${id}/versions`, { body: { version: '1', features: [] } })).status).toBe(409);
      const bad = await h.api('POST', `/v2/models/${id}/versions`, {
        body: { version: '2', features: [{ name: 'x', json_schema: { type: 'integer', default: 'a' }, mandatory: true }] },
      });
      expect(bad.status).toBe(422);
      expect((await h.api('POST', `/v2/models/${uid('nope')}/versions`, { body: { version: '1', features: [] } })).status).toBe(404);
    });

    it('keeps the freeze immutable even for a direct database write', async () => {
      const id = await model();
      await expect(
        h
          .knex('model_versions')
          .where({ model_id: id, version: '1' })
          .update({ features: JSON.stringify(FEATURES) }),
      ).rejects.toThrow(/freeze/);
    });

    it('enforces the version transition table', async () => {
      const id = await model();
      const move = (status: string) => h.api('PUT', `/v2/models/${id}/versions/1/new_status`, { body: { status } });
      expect((await move('training')).status).toBe(409);
      expect((await move('active')).body.status).toBe('active');
      expect((await h.api('GET', `/v2/models/${id}`)).body.model.status).toBe('active');
      const back = await move('pending');
      expect(back.status).toBe(409);
      expect(back.body.message).toContain('allowed: failed');
      expect((await move('failed')).body.status).toBe('failed');
      expect((await h.api('GET', `/v2/models/${id}`)).body.model.status).toBe('pending');
      expect((await move('pending')).body.status).toBe('pending');
      expect((await move('bogus')).status).toBe(400);
    });
  });
});
