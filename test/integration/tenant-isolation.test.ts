import { Harness, PLATFORM_CLIENT, uid } from '../helpers/harness';
import { activeModel, tenantWithDomain } from '../helpers/fixtures';
import { OPERATIONS } from '../../src/openapi/operations';

/** Cross-tenant reads and platform reach found by an attack run (issue 25), each replayed against the rules. */
describe('tenant isolation', () => {
  let h: Harness;
  let modelId: string;
  let acme: { clientId: string; domainId: string };
  let beta: { clientId: string; domainId: string };
  let acmeAssignment: string;
  /** A machine client bound to a tenant of its own. */
  const tenantBot = uid('bot');
  const jobs: Record<'acme' | 'beta' | 'none', string> = { acme: uid('job-acme'), beta: uid('job-beta'), none: uid('job-none') };

  beforeAll(async () => {
    h = await Harness.start({
      env: {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32',
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [tenantBot]: { access: 'tenant', tenants: [tenantBot] },
        }),
      },
    });
    modelId = await activeModel(h);
    // Two tenants whose domains run the model (an active assignment each).
    acme = await tenantWithDomain(h, { modelId });
    beta = await tenantWithDomain(h, { modelId });
    acmeAssignment = (await h.api('GET', `/v2/clients/${acme.clientId}/domains/${acme.domainId}/assignments`)).body.items[0].assignment_id;
    // Running jobs of two tenants and of none, written straight into the table (no workflow needed to read them).
    for (const [key, client] of [
      ['acme', acme.clientId],
      ['beta', beta.clientId],
      ['none', null],
    ] as const) {
      await h.knex('model_jobs').insert({
        job_id: jobs[key],
        model_id: modelId,
        model_version: '1',
        job_type: 'inference',
        trigger: 'direct',
        status: 'running',
        client_id: client,
        input: { secret: `${key}-input` },
      });
    }
  });
  afterAll(() => h.stop());

  /** A user of tenant beta (groups), with the given scopes. */
  const bob = (scopes: string[]) => h.idp.human('bob', [`client:${beta.clientId}`], scopes);
  /** What of acme's an answer must never hold when the caller is bound to beta. */
  const acmeMarks = () => [acme.clientId, acme.domainId, jobs.acme, 'acme-input', acmeAssignment];
  const leaks = (body: unknown) => acmeMarks().filter((mark) => JSON.stringify(body ?? null).includes(mark));

  describe('a model version job list', () => {
    it('holds only the jobs of the tenants a human bound to tenants may see', async () => {
      const res = await h.api('GET', `/v2/models/${modelId}/versions/1/jobs?status=running&limit=200`, {
        token: await bob(['read_models']),
      });
      expect(res.status).toBe(200);
      expect(res.body.items.map((j: { job_id: string }) => j.job_id)).toEqual([jobs.beta]);
    });

    it('agrees with the read by id: a job the caller cannot read is not listed', async () => {
      const token = await bob(['read_models']);
      expect((await h.api('GET', `/v2/jobs/${jobs.acme}`, { token })).status).toBe(404);
      const listed = await h.api('GET', `/v2/models/${modelId}/versions/1/jobs?limit=200`, { token });
      expect(leaks(listed.body)).toEqual([]);
    });

    it('holds every job for platform clients and human administrators', async () => {
      for (const token of [await h.adminToken(), await h.idp.human('root', ['admin'])]) {
        const res = await h.api('GET', `/v2/models/${modelId}/versions/1/jobs?limit=200`, { token });
        expect(res.body.items.map((j: { job_id: string }) => j.job_id).sort()).toEqual(Object.values(jobs).sort());
      }
    });
  });

  describe('compatibility reports and previews on the global registry routes', () => {
    it("list only the caller's tenants' assignments, and still judge every assignment", async () => {
      const token = await bob(['read_models']);
      const own = await h.api('GET', `/v2/models/${modelId}/compatibility`, { token });
      expect(own.status).toBe(200);
      expect(own.body.assignments.map((a: { client_id: string }) => a.client_id)).toEqual([beta.clientId]);
      const all = await h.api('GET', `/v2/models/${modelId}/compatibility`);
      expect(all.body.assignments.map((a: { client_id: string }) => a.client_id).sort()).toEqual([acme.clientId, beta.clientId].sort());
      expect(own.body.compatible).toBe(all.body.compatible);
    });

    it('refuse a tenant-bound human the registry writes, dry runs included (they preview every tenant the change touches)', async () => {
      const token = await bob(['write_models']);
      const created = await h.api('POST', `/v2/models/${modelId}/versions?dry_run=true`, {
        token,
        body: { version: '9', features: [{ name: 'seats', json_schema: { type: 'string' }, mandatory: true }] },
      });
      expect([created.status, leaks(created.body)]).toEqual([403, []]);
      const status = await h.api('PUT', `/v2/models/${modelId}/versions/1/new_status?dry_run=true`, { token, body: { status: 'failed' } });
      expect([status.status, leaks(status.body)]).toEqual([403, []]);
    });
  });

  it('answers no read of a tenant-bound human, with or without scope admin, with anything of another tenant', async () => {
    // Every GET route, with real ids: the caller's own tenant in tenant paths, acme's job in job paths.
    const pathOf = (path: string) =>
      path
        .replace('{client_id}', beta.clientId)
        .replace('{domain_id}', beta.domainId)
        .replace('{model_id}', modelId)
        .replace('{model_version}', '1')
        .replace(/\{(model_job_id|job_id)\}/, jobs.acme)
        .replace(/\{[a-z_]+\}/g, '01890000-0000-7000-8000-000000000001');
    const found: string[] = [];
    for (const scopes of [['admin'], ['read_models', 'client_read']]) {
      const token = await bob(scopes);
      for (const op of OPERATIONS.filter((o) => o.method === 'GET' && o.permission !== 'public')) {
        const path = `${pathOf(op.path)}${op.paginated ? '?limit=200' : ''}`;
        const res = await h.api('GET', path, { token });
        // A 404 names the id the caller asked for; that is no leak.
        const marks = leaks(res.body).filter((mark) => !path.includes(mark));
        if (marks.length) found.push(`${scopes.join(' ')} GET ${path} → ${res.status} holds ${marks.join(', ')}`);
      }
    }
    expect(found).toEqual([]);
  });

  describe('scope admin on a token bound to tenants', () => {
    const hook = { url: 'http://127.0.0.1:9/hook', event_types: ['job.succeeded'] };

    it('does not reach the platform-wide webhooks, which receive every tenant’s events', async () => {
      const token = await bob(['admin']);
      const created = await h.api('POST', '/v2/webhooks', { token, body: hook });
      expect(created.status).toBe(403);
      expect(created.body.message).toMatch(/spans every tenant/);
      expect((await h.api('GET', '/v2/webhooks', { token })).status).toBe(403);
    });

    it('refuses a tenant machine client with scope admin there too', async () => {
      const res = await h.api('POST', '/v2/webhooks', { token: await h.idp.machine(tenantBot, ['admin']), body: hook });
      expect(res.status).toBe(403);
    });

    it("still acts on the tenant's own resources, and not on another tenant's", async () => {
      const token = await bob(['admin']);
      expect((await h.api('POST', `/v2/clients/${beta.clientId}/webhooks`, { token, body: hook })).status).toBe(201);
      expect((await h.api('POST', `/v2/clients/${acme.clientId}/webhooks`, { token, body: hook })).status).toBe(403);
      expect((await h.api('GET', `/v2/jobs?client_id=${acme.clientId}`, { token })).body.items).toEqual([]);
    });

    it('leaves platform administrators their reach: group admin, and a platform client with scope admin', async () => {
      for (const token of [await h.idp.human('root', ['admin']), await h.adminToken()]) {
        const res = await h.api('POST', '/v2/webhooks', { token, body: hook });
        expect(res.status).toBe(201);
      }
    });
  });
});
