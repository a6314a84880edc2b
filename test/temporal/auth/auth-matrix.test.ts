import { SignJWT, generateKeyPair } from 'jose';
import { Harness, PLATFORM_CLIENT } from '../../helpers/harness';
import { ISSUER, AUDIENCE } from '../../helpers/tokens';
import { OPERATIONS, Operation, koaPath } from '../../../src/openapi/operations';
import { createJobTokens } from '../../../src/auth/job-tokens';

const TENANT = 'tenant-a';
const OTHER_TENANT = 'tenant-b';
const TENANT_CLIENT = 'tenant-a';
const MISMATCHED_CLIENT = 'tenant-a-batch';

type Expect = 'allowed' | 401 | 403 | 404;
/** A token case: its token may depend on the operation's permission (`scopeFor(op)`). */
type Case = {
  name: string;
  token: (op: Operation) => Promise<string | null>;
  expect: (op: Operation) => Expect;
  path?: (op: Operation) => string;
};

function pathFor(op: Operation, clientId = TENANT): string {
  return op.path
    .replace('{client_id}', clientId)
    .replace(/\{(model_job_id|job_id)\}/, MATRIX_JOB)
    .replace(/\{(subscription_id|webhook_id|delivery_id)\}/g, '01890000-0000-7000-8000-000000000001')
    .replace(/\{[a-z_]+\}/g, 'matrix-x');
}

const MATRIX_JOB = '01890000-0000-7000-8000-000000000000';
const protectedOps = OPERATIONS.filter((op) => op.permission !== 'public');
/** A body that passes validation where that matters for the expected status (job routes answer 404 after it). */
const sampleBody = (op: Operation) => (op.id === 'completeJob' ? { status: 'success' } : {});
/** The scope that grants an operation on its own. */
const scopeFor = (op: Operation) => (op.permission === 'admin' ? 'admin' : op.permission);
/**
 * The platform-only routes (docs/authorization.md, "Platform-only"): every write of the shared model registry and
 * every job or schedule of no tenant, tenants and their settings, and the platform-wide webhooks, which receive every
 * tenant's events. Listed by hand, so that a route moved out of this set fails here before a tenant can reach it.
 */
const PLATFORM_ONLY = [
  'upsertClient',
  'setClientStatus',
  'createModel',
  'updateModel',
  'createVersion',
  'setVersionStatus',
  'setVersionArtifacts',
  'deleteVersion',
  'deleteModel',
  'putAlias',
  'deleteAlias',
  'setModelTag',
  'deleteModelTag',
  'setVersionTag',
  'deleteVersionTag',
  'startTraining',
  'startInference',
  'createSubscription',
  'setSubscriptionStatus',
  'deleteSubscription',
  ...['Training', 'Inference'].flatMap((kind) =>
    ['create', 'update', 'delete', 'pause', 'unpause', 'trigger', 'backfill'].map((verb) => `${verb}${kind}Schedule`),
  ),
  ...OPERATIONS.filter((op) => op.path === '/v2/webhooks' || op.path.startsWith('/v2/webhooks/')).map((op) => op.id),
];
const platformOnly = (op: Operation) => op.tenancy === 'platform';
/** Where a caller bound to tenants (a tenant client, a user of client groups) stands outside its tenants' paths. */
const boundOutside = (op: Operation, global: Expect): Expect =>
  platformOnly(op) ? 403 : op.tenancy === 'global' ? global : op.tenancy === 'job' ? 404 : 'allowed';
/** An unrelated scope: a valid token that lacks the permission. */
const wrongScopeFor = (op: Operation) => (op.permission === 'read_models' ? 'complete_job' : 'read_models');

describe('authentication and authorization matrix', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({
      env: {
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [TENANT_CLIENT]: { access: 'tenant', tenants: [TENANT] },
          [MISMATCHED_CLIENT]: { access: 'tenant', tenants: [TENANT] },
        }),
      },
    });
  });
  afterAll(() => h.stop());

  it('covers every route the router declares, and the table holds no route the router lacks', () => {
    const declared = h.router.stack
      .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`))
      .filter((r) => !/ \/(docs|console)(\/|$)/.test(r) && !r.endsWith(' /v2/openapi.json'));
    const table = OPERATIONS.map((op) => `${op.method} ${koaPath(op.path)}`);
    expect([...declared].sort()).toEqual([...table].sort());
  });

  it('checks every write of the shared registry, every tenant setting and what spans every tenant for platform reach', () => {
    expect(
      OPERATIONS.filter(platformOnly)
        .map((op) => op.id)
        .sort(),
    ).toEqual([...PLATFORM_ONLY].sort());
  });

  const jobToken = async (jobId: string) => (await createJobTokens(h.config.jobs.tokenKeys).issue(jobId, new Date(Date.now() + 600_000)))!;

  let foreignKey: ReturnType<typeof generateKeyPair> | undefined;
  const expired = () =>
    h.idp.sign({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' }, { expiresIn: Math.floor(Date.now() / 1000) - 120 });
  const cases: Case[] = [
    { name: 'no token', token: async () => null, expect: () => 401 },
    { name: 'expired token', token: expired, expect: () => 401 },
    {
      name: 'not yet valid token',
      token: () => h.idp.sign({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' }, { notBefore: '1h' }),
      expect: () => 401,
    },
    {
      name: 'wrong issuer',
      token: () => h.idp.sign({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' }, { issuer: 'https://evil.example/' }),
      expect: () => 401,
    },
    {
      name: 'wrong audience',
      token: () => h.idp.sign({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' }, { audience: 'someone-else' }),
      expect: () => 401,
    },
    {
      name: 'alg none',
      token: async () => {
        const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ client_id: PLATFORM_CLIENT, scope: 'platform/admin', iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 300 })}.`;
      },
      expect: () => 401,
    },
    {
      name: 'HS256 signed with the public key',
      token: () =>
        new SignJWT({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' })
          .setProtectedHeader({ alg: 'HS256', kid: h.idp.kid })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(Buffer.from(JSON.stringify(h.idp.publicJwk))),
      expect: () => 401,
    },
    {
      name: 'unknown kid',
      token: async () => {
        // One foreign key for the whole case: an RSA key per route made this case outlast its timeout on a loaded machine.
        const { privateKey } = await (foreignKey ??= generateKeyPair('RS256'));
        return new SignJWT({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' })
          .setProtectedHeader({ alg: 'RS256', kid: 'rotated-away' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(privateKey);
      },
      expect: () => 401,
    },
    { name: 'platform client missing the scope', token: (op) => h.idp.machine(PLATFORM_CLIENT, [wrongScopeFor(op)]), expect: () => 403 },
    {
      name: 'platform client with the right scope',
      token: (op) => h.idp.machine(PLATFORM_CLIENT, [scopeFor(op)]),
      expect: () => 'allowed',
    },
    {
      name: 'tenant client on its own tenant',
      token: (op) => h.idp.machine(TENANT_CLIENT, [scopeFor(op)]),
      expect: (op) => boundOutside(op, 403),
    },
    {
      name: 'tenant client on another tenant',
      token: (op) => h.idp.machine(TENANT_CLIENT, [scopeFor(op)]),
      path: (op) => pathFor(op, OTHER_TENANT),
      expect: (op) => (op.tenancy === 'tenant' ? 403 : boundOutside(op, 403)),
    },
    {
      name: 'tenant client whose client_id claim differs from the path',
      token: (op) => h.idp.machine(MISMATCHED_CLIENT, [scopeFor(op) === 'admin' ? 'client_read' : scopeFor(op)]),
      expect: (op) => (op.tenancy === 'tenant' ? 403 : boundOutside(op, 403)),
    },
    { name: 'machine client not in MACHINE_CLIENTS', token: (op) => h.idp.machine('stranger', [scopeFor(op)]), expect: () => 403 },
    {
      name: 'human with the client group and the scope',
      token: (op) =>
        scopeFor(op) === 'admin' ? h.idp.human('alice', ['admin']) : h.idp.human('alice', [`client:${TENANT}`], [scopeFor(op)]),
      expect: (op) => (op.tenancy === 'job' ? 404 : platformOnly(op) && scopeFor(op) !== 'admin' ? 403 : 'allowed'),
    },
    // Scope admin grants every operation but no reach (docs/authorization.md, "What admin means"): a token bound to
    // tenants keeps to them with it, on every route, and never reaches what spans every tenant.
    {
      name: 'tenant client with scope admin on its own tenant',
      token: () => h.idp.machine(TENANT_CLIENT, ['admin']),
      expect: (op) => boundOutside(op, 403),
    },
    {
      name: 'tenant client with scope admin on another tenant',
      token: () => h.idp.machine(TENANT_CLIENT, ['admin']),
      path: (op) => pathFor(op, OTHER_TENANT),
      expect: (op) => (op.tenancy === 'tenant' ? 403 : boundOutside(op, 403)),
    },
    {
      name: 'tenant client with scope admin whose client_id differs from the path (admin lifts that check, not the tenant list)',
      token: () => h.idp.machine(MISMATCHED_CLIENT, ['admin']),
      expect: (op) => boundOutside(op, 403),
    },
    {
      name: 'human of a tenant (client group) with scope admin, on its tenant',
      token: () => h.idp.human('dora', [`client:${TENANT}`], ['admin']),
      expect: (op) => boundOutside(op, 'allowed'),
    },
    {
      name: 'human of a tenant (client group) with scope admin, on another tenant',
      token: () => h.idp.human('dora', [`client:${TENANT}`], ['admin']),
      path: (op) => pathFor(op, OTHER_TENANT),
      expect: (op) => (op.tenancy === 'tenant' ? 403 : boundOutside(op, 'allowed')),
    },
    {
      name: 'human of a tenant (client group) without admin, holding the route scope',
      token: (op) => h.idp.human('erin', [`client:${TENANT}`], op.permission === 'admin' ? ['client_read'] : [op.permission]),
      expect: (op) => (op.permission === 'admin' ? 403 : boundOutside(op, 'allowed')),
    },
    {
      name: 'human of a tenant (client group) without admin, on another tenant',
      token: (op) => h.idp.human('erin', [`client:${TENANT}`], op.permission === 'admin' ? ['client_read'] : [op.permission]),
      path: (op) => pathFor(op, OTHER_TENANT),
      expect: (op) => (op.permission === 'admin' || op.tenancy === 'tenant' ? 403 : boundOutside(op, 'allowed')),
    },
    {
      name: 'human with the scope but another client group',
      token: (op) => h.idp.human('bob', [`client:${TENANT}`], scopeFor(op) === 'admin' ? [] : [scopeFor(op)]),
      path: (op) => pathFor(op, OTHER_TENANT),
      expect: (op) => (op.tenancy === 'tenant' || platformOnly(op) ? 403 : op.tenancy === 'job' ? 404 : 'allowed'),
    },
    {
      name: 'human bound to no tenant (no client group, not admin), holding the route scope',
      token: (op) => h.idp.human('frank', ['ml-team'], op.permission === 'admin' ? ['client_read'] : [op.permission]),
      expect: (op) =>
        op.permission === 'admin' || op.tenancy === 'tenant' || platformOnly(op) ? 403 : op.tenancy === 'job' ? 404 : 'allowed',
    },
    { name: 'human admin', token: () => h.idp.human('root', ['admin']), expect: () => 'allowed' },
    {
      name: "job token of the path's job (the completion route alone)",
      token: () => jobToken(MATRIX_JOB),
      expect: (op) => (op.id === 'completeJob' ? 'allowed' : 403),
    },
    { name: 'job token of another job', token: () => jobToken('01890000-0000-7000-8000-00000000000f'), expect: () => 403 },
  ];

  for (const c of cases) {
    it(`${c.name}: every protected route answers as the rules say`, async () => {
      const failures: string[] = [];
      for (const op of protectedOps) {
        let expected = c.expect(op);
        // A human without the admin group holding no admin scope is refused admin-only routes.
        if (c.name === 'human with the scope but another client group' && op.permission === 'admin') expected = 403;
        if (c.name === 'tenant client whose client_id claim differs from the path' && op.permission === 'admin') expected = 403;
        const path = c.path ? c.path(op) : pathFor(op);
        const res = await h.api(op.method, path, { token: await c.token(op), body: op.body ? sampleBody(op) : undefined });
        const ok = expected === 'allowed' ? res.status !== 401 && res.status !== 403 : res.status === expected;
        if (!ok) failures.push(`${op.method} ${path}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status === 401 || res.status === 403) {
          if (res.body?.success !== false || typeof res.body?.message !== 'string')
            failures.push(`${op.method} ${path}: ${res.status} body is not an ErrorResponse`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('answers the public routes (health, probes, metrics) without a token, and ignores a bad one there', async () => {
    const publicOps = OPERATIONS.filter((op) => op.permission === 'public');
    expect(publicOps.map((op) => op.path).sort()).toEqual(['/metrics', '/v2/health', '/v2/health/live', '/v2/health/ready']);
    for (const op of publicOps) {
      for (const token of [null, 'not.a.jwt']) {
        const res = await h.api(op.method, op.path, { token });
        expect([res.status, op.path]).toEqual([op.status, op.path]);
      }
    }
  });

  it('refuses malformed Authorization headers with 401 and never echoes the token', async () => {
    const token = await h.adminToken();
    for (const header of [`Basic ${token}`, 'Bearer', `Bearer ${token} extra`, 'Bearer not.a.jwt']) {
      const res = await fetch(`${h.baseUrl}/v2/models`, { headers: { Authorization: header } });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(JSON.parse(text).success).toBe(false);
      expect(text).not.toContain(token.slice(20, 60));
    }
  });

  it('challenges with WWW-Authenticate: plain Bearer without a token, invalid_token for a refused one', async () => {
    const none = await h.api('GET', '/v2/models', { token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const expiredToken = await h.api('GET', '/v2/models', { token: await expired() });
    expect(expiredToken.status).toBe(401);
    expect(expiredToken.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]*expired[^"]*"$/);
  });

  it('names the missing permission in the 403', async () => {
    const res = await h.api('POST', '/v2/models', { token: await h.idp.machine(PLATFORM_CLIENT, ['read_models']), body: {} });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('write_models');
  });

  it('lets manage_domains act on services (it includes manage_services)', async () => {
    const res = await h.api('PUT', `/v2/clients/${TENANT}/domains/x/service/y/new_status`, {
      token: await h.idp.machine(PLATFORM_CLIENT, ['manage_domains']),
      body: { status: 'failed' },
    });
    expect(res.status).toBe(404);
  });

  it('hides jobs of other tenants behind a 404 and shows a tenant its own', async () => {
    const modelId = `matrix-model-${Date.now()}`;
    await h.api('PUT', `/v2/clients/${TENANT}`, { body: {} });
    const created = await h.api('POST', '/v2/models', {
      body: {
        id: modelId,
        name: 'm',
        description: '',
        metadata: {},
        handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
      },
    });
    expect(created.status).toBe(201);
    await h.api('PUT', `/v2/models/${modelId}/versions/1/new_status`, { body: { status: 'active' } });
    const direct = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    const [own] = await h
      .knex('model_jobs')
      .insert({
        job_id: `${direct.body.job_id}-a`,
        model_id: modelId,
        model_version: '1',
        job_type: 'inference',
        trigger: 'direct',
        client_id: TENANT,
      })
      .returning('job_id');
    const tenantToken = await h.idp.machine(TENANT_CLIENT, ['read_models']);
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${own.job_id}`, { token: tenantToken })).status).toBe(200);
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${direct.body.job_id}`, { token: tenantToken })).status).toBe(404);
    expect(
      (
        await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${direct.body.job_id}`, {
          token: await h.idp.human('carol', [`client:${TENANT}`], ['read_models']),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${direct.body.job_id}`, {
          token: await h.idp.machine(PLATFORM_CLIENT, ['read_models']),
        })
      ).status,
    ).toBe(200);
    // By id alone: the same tenant check.
    await h.api('PUT', `/v2/clients/${OTHER_TENANT}`, { body: {} });
    const [other] = await h
      .knex('model_jobs')
      .insert({
        job_id: `${direct.body.job_id}-b`,
        model_id: modelId,
        model_version: '1',
        job_type: 'inference',
        trigger: 'direct',
        client_id: OTHER_TENANT,
      })
      .returning('job_id');
    expect((await h.api('GET', `/v2/jobs/${other.job_id}`, { token: tenantToken })).status).toBe(404);
    expect((await h.api('GET', `/v2/jobs/${own.job_id}`, { token: tenantToken })).body).toMatchObject({
      job_id: own.job_id,
      client_id: TENANT,
    });
    expect((await h.api('GET', `/v2/jobs/${direct.body.job_id}`, { token: tenantToken })).status).toBe(404);
    expect(
      (await h.api('GET', `/v2/jobs/${direct.body.job_id}`, { token: await h.idp.human('carol', [`client:${TENANT}`], ['read_models']) }))
        .status,
    ).toBe(404);
    expect(
      (await h.api('GET', `/v2/jobs/${direct.body.job_id}`, { token: await h.idp.machine(PLATFORM_CLIENT, ['read_models']) })).body.job_id,
    ).toBe(direct.body.job_id);
  });

  it("lets a tenant's callers read its limits and only administrators set them", async () => {
    await h.api('PUT', `/v2/clients/${TENANT}`, { body: {} });
    const limits = { max_running_jobs: 3 };
    for (const token of [
      await h.idp.machine(TENANT_CLIENT, ['client_read', 'manage_domains']),
      await h.idp.human('dave', [`client:${TENANT}`], ['client_read', 'manage_domains']),
      await h.idp.machine(PLATFORM_CLIENT, ['client_read', 'manage_domains']),
    ]) {
      const refused = await h.api('PUT', `/v2/clients/${TENANT}`, { token, body: { limits } });
      expect([refused.status, refused.body.message]).toEqual([403, expect.stringContaining('administrators')]);
    }
    // Limits protect every other tenant: a tenant's own administrators may not lift them, nor reactivate a tenant.
    for (const token of [await h.idp.machine(TENANT_CLIENT, ['admin']), await h.idp.human('dora', [`client:${TENANT}`], ['admin'])]) {
      const lifted = await h.api('PUT', `/v2/clients/${TENANT}`, { token, body: { limits: { burst: 100000 } } });
      expect([lifted.status, lifted.body.message]).toEqual([403, expect.stringContaining('every tenant shares')]);
      const status = await h.api('PUT', `/v2/clients/${TENANT}/new_status`, { token, body: { status: 'active' } });
      expect(status.status).toBe(403);
    }
    expect((await h.api('PUT', `/v2/clients/${TENANT}`, { body: { limits } })).body.limits_override).toEqual(limits);
    const read = await h.api('GET', `/v2/clients/${TENANT}`, { token: await h.idp.machine(TENANT_CLIENT, ['client_read']) });
    expect(read.body).toMatchObject({ limits: { max_running_jobs: 3 }, limits_override: limits });
    expect((await h.api('PUT', `/v2/clients/${TENANT}`, { body: { limits: null } })).body.limits_override).toBeNull();
  });

  it('narrows the client list to the tenants the caller may see', async () => {
    await h.api('PUT', `/v2/clients/${TENANT}`, { body: {} });
    await h.api('PUT', `/v2/clients/${OTHER_TENANT}`, { body: {} });
    const res = await h.api('GET', '/v2/clients?limit=200', { token: await h.idp.machine(TENANT_CLIENT, ['client_read']) });
    expect(res.status).toBe(200);
    expect(res.body.items.map((c: any) => c.client_id)).toEqual([TENANT]);
  });
});
