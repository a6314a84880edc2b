import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness } from '../../helpers/harness';
import { AwsStandIn, TEST_AWS } from '../../helpers/aws-stand-in';
import { activeModel, tenantWithDomain, eventually } from '../../helpers/fixtures';
import { MAX_JSON_DEPTH } from '../../../src/http/json-guard';

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
/** JSON text nested `depth` levels, built as text because JSON.stringify itself overflows on such values. */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** The input classes that answered 500 in the fuzz run of issue 11; each must now be a 400 naming the field. */
describe('input refused at the edge with 400 before any query', () => {
  let h: Harness;
  let modelId: string;
  let clientId: string;
  beforeAll(async () => {
    h = await Harness.start();
    modelId = await activeModel(h);
    clientId = (await tenantWithDomain(h, { modelId })).clientId;
  });
  afterAll(() => h.stop());

  it.each(['GET', 'DELETE'])('%s of a subscription_id that is not a UUID', async (method) => {
    const res = await h.api(method, `/v2/models/${modelId}/event-subscriptions/not-a-uuid`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('subscription_id');
  });

  // The fair queue reads the tenant of the path before the routes do: a segment whose escapes are not UTF-8 must
  // reach the route's own answer, not break the queue.
  it('answers a tenant path segment that is not UTF-8 as a client mistake', async () => {
    const res = await h.api('GET', '/v2/clients/%ED%A0%80/domains');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('PUT new_status of a subscription_id that is not a UUID', async () => {
    const res = await h.api('PUT', `/v2/models/${modelId}/event-subscriptions/x1/new_status`, { body: { status: 'disabled' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('subscription_id');
  });

  it.each([
    ['/v2/models?name=%00', 'name'],
    ['/v2/clients/{client}/jobs?model_id=%00', 'model_id'],
    ['/v2/models?name=a%00b', 'name'],
  ])('a NUL byte in a query value: %s', async (path, field) => {
    const res = await h.api('GET', path.replace('{client}', clientId));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`query parameter ${field}`);
  });

  it.each([
    ['a date JavaScript parses but Postgres does not', ['2024', 'x']],
    ['a date out of Postgres range', ['+275760-09-13T00:00:00.000Z', 'x']],
    ['a NUL in the id', ['2024-01-01T00:00:00.000Z', 'a\u0000b']],
    ['a lone surrogate in the id', ['2024-01-01T00:00:00.000Z', '\ud800']],
    ['an impossible date', ['2024-02-30T00:00:00.000Z', 'x']],
    ['a number instead of the id', ['2024-01-01T00:00:00.000Z', 5]],
  ])('a forged cursor with %s', async (_what, value) => {
    const res = await h.api('GET', `/v2/models?cursor=${cursorOf(value)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('cursor');
  });

  it('still pages with the cursors it gives out', async () => {
    await activeModel(h);
    const first = await h.api('GET', '/v2/models?limit=1');
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await h.api('GET', `/v2/models?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
  });

  it.each([
    ['a NUL in a client name', (c: string) => ['PUT', `/v2/clients/${c}`, { name: 'a\u0000b' }], '/name'],
    ['a lone surrogate in a client name', (c: string) => ['PUT', `/v2/clients/${c}`, { name: 'x\ud800' }], '/name'],
    ['a NUL in metadata', (_c: string, m: string) => ['PUT', `/v2/models/${m}`, { metadata: { note: '\u0000' } }], '/metadata/note'],
    [
      'a lone low surrogate in a metadata key',
      (_c: string, m: string) => ['PUT', `/v2/models/${m}`, { metadata: { ['k\udc00']: 1 } }],
      '/metadata/k',
    ],
  ] as const)('%s', async (_what, request, field) => {
    const [method, path, body] = request('c-' + Date.now(), modelId) as [string, string, unknown];
    const res = await h.api(method, path, { body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels, even 20,000 deep`, async () => {
    for (const depth of [MAX_JSON_DEPTH, 20000]) {
      const res = await h.api('PUT', `/v2/models/${modelId}`, { body: `{"metadata":${deepJson(depth)}}` });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('nested deeper than');
    }
  });

  it(`accepts JSON nested ${MAX_JSON_DEPTH} levels`, async () => {
    const res = await h.api('PUT', `/v2/models/${modelId}`, { body: { metadata: nested(MAX_JSON_DEPTH - 2) } });
    expect(res.status).toBe(200);
  });
});

describe('a completion whose output is nested 4,500 levels deep', () => {
  let h: Harness;
  let sink: AwsStandIn;
  beforeAll(async () => {
    // The Lambda stand-in accepts the invoke and never reports: the job waits for the completion route.
    sink = await AwsStandIn.start(() => ({ status: 202 }));
    h = await Harness.start({ worker: true, lambda: new LambdaClient({ ...TEST_AWS, endpoint: sink.url }) });
  });
  afterAll(async () => {
    await h.stop();
    await sink.stop();
  });

  it('is a 400 (it got 503 forever), and a proper report afterwards completes the job', async () => {
    const modelId = await activeModel(h, {
      handlers: { training: { type: 'lambda', arn: 'fn' }, inference: { type: 'lambda', arn: 'fn' } },
    });
    const { body } = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} });
    const jobPath = `/v2/models/${modelId}/versions/1/jobs/${body.job_id}`;
    await eventually(async () => (await h.api('GET', jobPath)).body.status === 'running', 20000, 'dispatch');
    const deep = await h.api('POST', `${jobPath}/complete`, { body: `{"status":"success","output":${deepJson(4500)}}` });
    expect(deep.status).toBe(400);
    const ok = await h.api('POST', `${jobPath}/complete`, { body: { status: 'success', output: { fine: true } } });
    expect(ok.status).toBe(200);
  });
});

/** Identity claims are stored (audit fields) and queried (groups): a NUL in one answered 500 on every audited write. */
describe('a token whose identity claims cannot be stored', () => {
  let h: Harness;
  let modelId: string;
  beforeAll(async () => {
    h = await Harness.start();
    modelId = await activeModel(h);
  });
  afterAll(() => h.stop());

  it.each([
    ['POST', 'versions', { version: '2', features: [] }],
    ['PUT', 'versions/1/new_status', { status: 'active' }],
  ])('is a 401 naming the claim on an audited write (%s %s), and the write is not made', async (method, path, body) => {
    const token = await h.idp.sign({ sub: 'eve', username: 'eve\u0000', 'idp:groups': ['admin'] });
    const res = await h.api(method, `/v2/models/${modelId}/${path}`, { token, body });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('invalid bearer token: claim "username" holds a control character');
    expect((await h.api('GET', `/v2/models/${modelId}/versions`)).body.items.map((v: { version: string }) => v.version)).toEqual(['1']);
  });

  it('is a 401 for a group that names a tenant with a NUL (groups narrow queries)', async () => {
    const res = await h.api('GET', '/v2/clients', { token: await h.idp.human('eve', ['client:acme\u0000'], ['client_read']) });
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('claim "idp:groups"');
  });

  it('is a 401 for a subject longer than the stored form allows', async () => {
    const token = await h.idp.sign({ client_id: 'platform-app', sub: 'x'.repeat(5000), scope: 'platform/admin' });
    expect((await h.api('GET', '/v2/models', { token })).status).toBe(401);
  });
});
