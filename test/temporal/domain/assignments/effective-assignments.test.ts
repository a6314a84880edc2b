import { Harness, PLATFORM_CLIENT } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../../../helpers/fixtures';

const pause = () => new Promise((r) => setTimeout(r, 25));

describe('effective assignments at an instant (time travel)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  /** Waits a moment each side of the request, so `before`/`after` instants fall strictly outside its transaction. */
  async function instantBetween() {
    await pause();
    const at = new Date().toISOString();
    await pause();
    return at;
  }

  async function ranker(base: string, at: string) {
    const res = await h.api('GET', `${base}/service/svc-t/effective-assignments?at=${encodeURIComponent(at)}`);
    expect(res.status).toBe(200);
    return res.body.items.find((a: any) => a.assignment_key === 'ranker');
  }

  it('answers the revision in force before, between and after three upserts', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-t', { seats: 2 })).status).toBe(202);
    const put = async (settings: object) => {
      const res = await h.api('PUT', `${base}/assignments/ranker`, { body: { model_id: modelId, model_version: '1', settings } });
      expect(res.status).toBe(201);
      return res.body;
    };
    const t0 = await instantBetween();
    const r1 = await put({ n: 1 });
    const t1 = await instantBetween();
    const r2 = await put({ n: 2 });
    const t2 = await instantBetween();
    const r3 = await put({ n: 3 });
    const t3 = await instantBetween();

    expect(await ranker(base, t0)).toBeUndefined();
    expect((await ranker(base, t1)).assignment_id).toBe(r1.assignment_id);
    expect((await ranker(base, t2)).assignment_id).toBe(r2.assignment_id);
    expect((await ranker(base, t3)).assignment_id).toBe(r3.assignment_id);
    // An instant with an offset other than Z names the same moment.
    const t2Offset = new Date(t2).toISOString().replace('Z', '+00:00');
    expect((await ranker(base, t2Offset)).assignment_id).toBe(r2.assignment_id);

    // Each revision keeps when it was in force and who made and archived it.
    const history = (await h.api('GET', `${base}/assignments?status=all`)).body.items.filter((a: any) => a.assignment_key === 'ranker');
    const byId = Object.fromEntries(history.map((a: any) => [a.assignment_id, a]));
    expect(byId[r1.assignment_id]).toMatchObject({ status: 'archived', created_by: PLATFORM_CLIENT, archived_by: PLATFORM_CLIENT });
    expect(byId[r1.assignment_id].archived_at).toBe(byId[r2.assignment_id].activated_at);
    expect(byId[r2.assignment_id].archived_at).toBe(byId[r3.assignment_id].activated_at);
    expect(byId[r3.assignment_id]).toMatchObject({ status: 'active', archived_at: null, archived_by: null });
  });

  it('prefers the service override in force at the instant, else the domain revision', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-t', { seats: 2 })).status).toBe(202);
    const domainRev = (await h.api('PUT', `${base}/assignments/ranker`, { body: { model_id: modelId, model_version: '1' } })).body;
    const beforeOverride = await instantBetween();
    const override = (await h.api('PUT', `${base}/service/svc-t/assignments/ranker`, { body: { model_id: modelId, model_version: '1' } }))
      .body;
    const duringOverride = await instantBetween();
    const retired = await h.api('PUT', `${base}/service/svc-t/assignments/ranker`, {
      body: { model_id: modelId, model_version: '1', status: 'archived' },
    });
    expect(retired.body).toMatchObject({ status: 'archived', activated_at: null });
    const afterRetire = await instantBetween();

    expect((await ranker(base, beforeOverride)).assignment_id).toBe(domainRev.assignment_id);
    expect((await ranker(base, duringOverride)).assignment_id).toBe(override.assignment_id);
    expect((await ranker(base, afterRetire)).assignment_id).toBe(domainRev.assignment_id);
    // Without `at`: what is in force now.
    const now = await h.api('GET', `${base}/service/svc-t/effective-assignments`);
    expect(now.body.items.find((a: any) => a.assignment_key === 'ranker').assignment_id).toBe(domainRev.assignment_id);
  });

  it('finds the jobs that ran under a revision', async () => {
    const modelId = await activeModel(h);
    const { clientId, base } = await tenantWithDomain(h, { modelId });
    const init = await initService(h, base, 'svc-j', { seats: 2 });
    const rev = (await h.api('GET', `${base}/assignments/default`)).body;
    const job = (await h.api('GET', `/v2/jobs/${init.body.job_id}`)).body;
    expect(job.assignment_id).toBe(rev.assignment_id);
    const jobs = await h.api('GET', `/v2/clients/${clientId}/jobs?assignment_id=${rev.assignment_id}`);
    expect(jobs.body.items.map((j: any) => j.job_id)).toEqual([init.body.job_id]);
    const none = await h.api('GET', `/v2/clients/${clientId}/jobs?assignment_id=00000000-0000-4000-8000-000000000000`);
    expect(none.body.items).toEqual([]);
    expect((await h.api('GET', `/v2/clients/${clientId}/jobs?assignment_id=nope`)).status).toBe(400);
  });

  it('refuses an instant that is not an RFC 3339 date-time with 400', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-t', { seats: 2 })).status).toBe(202);
    for (const at of ['yesterday', '2026-13-01T00:00:00Z', '2026-12-01']) {
      const res = await h.api('GET', `${base}/service/svc-t/effective-assignments?at=${at}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('at must be an RFC 3339 date-time');
    }
  });

  it('records who created a version, changed its status, and created and disabled a subscription', async () => {
    const modelId = await activeModel(h);
    const version = (await h.api('GET', `/v2/models/${modelId}/versions/1`)).body;
    expect(version).toMatchObject({ created_by: PLATFORM_CLIENT, status_changed_by: PLATFORM_CLIENT, status: 'active' });
    expect(version.status_changed_at).toEqual(expect.any(String));
    const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: modelId, target_action: 'inference', input_source: 'trigger_output' },
    });
    expect(sub.body).toMatchObject({ created_by: PLATFORM_CLIENT, status_changed_by: null });
    const disabled = await h.api('DELETE', `/v2/models/${modelId}/event-subscriptions/${sub.body.subscription_id}`);
    expect(disabled.body).toMatchObject({ status: 'disabled', status_changed_by: PLATFORM_CLIENT });
  });
});
