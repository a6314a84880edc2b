import { Harness, uid } from '../helpers/harness';
import { activeModel } from '../helpers/fixtures';

/** Cross-tenant reads and platform reach found by an attack run (issue 25), each replayed against the rules. */
describe('tenant isolation', () => {
  let h: Harness;
  let modelId: string;
  const acme = uid('acme');
  const beta = uid('beta');
  const jobs: Record<'acme' | 'beta' | 'none', string> = { acme: uid('job-acme'), beta: uid('job-beta'), none: uid('job-none') };

  beforeAll(async () => {
    h = await Harness.start();
    modelId = await activeModel(h);
    for (const t of [acme, beta]) expect((await h.api('PUT', `/v2/clients/${t}`, { body: { name: t } })).status).toBe(201);
    // Running jobs of two tenants and of none, written straight into the table (no workflow needed to read them).
    for (const [key, client] of [
      ['acme', acme],
      ['beta', beta],
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

  const bob = (scopes: string[]) => h.idp.human('bob', [`client:${beta}`], scopes);

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
      expect(JSON.stringify(listed.body)).not.toContain('acme-input');
    });

    it('holds every job for platform clients and human administrators', async () => {
      for (const token of [await h.adminToken(), await h.idp.human('root', ['admin'])]) {
        const res = await h.api('GET', `/v2/models/${modelId}/versions/1/jobs?limit=200`, { token });
        expect(res.body.items.map((j: { job_id: string }) => j.job_id).sort()).toEqual(Object.values(jobs).sort());
      }
    });
  });
});
