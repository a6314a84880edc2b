import { Harness } from '../../../helpers/harness';
import { activeModel, addVersion, FEATURES, initService, tenantWithDomain } from '../../../helpers/fixtures';

const ECONOMY_ONLY = FEATURES.map((f) =>
  f.name === 'cabin' ? { ...f, json_schema: { type: 'string', enum: ['economy'], default: 'economy' } } : f,
);

describe('registry: assignments that follow an alias', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true });
  });
  afterAll(() => h.stop());

  const moveAlias = (modelId: string, version: string, query = '') =>
    h.api('PUT', `/v2/models/${modelId}/aliases/champion${query}`, { body: { version } });
  const followers = async (modelId: string, count: number) => {
    const domains = [];
    for (let i = 0; i < count; i++) {
      const d = await tenantWithDomain(h);
      const res = await h.api('PUT', `${d.base}/assignments/default`, {
        body: { model_id: modelId, model_version: '1', follows_alias: 'champion' },
      });
      expect(res.status).toBe(201);
      expect(res.body.follows_alias).toBe('champion');
      domains.push({ ...d, assignmentId: res.body.assignment_id as string });
    }
    return domains;
  };
  const current = async (base: string) => (await h.api('GET', `${base}/assignments/default`)).body;

  it('moving the alias re-points three following assignments as new revisions in one transaction; a dry run shows it first', async () => {
    const modelId = await activeModel(h);
    await addVersion(h, modelId, '2', FEATURES);
    expect((await moveAlias(modelId, '1')).status).toBe(200);
    const domains = await followers(modelId, 3);

    const dry = await moveAlias(modelId, '2', '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.body.preview).toBeDefined();
    expect((await h.api('GET', `/v2/models/${modelId}/aliases/champion`)).body.version).toBe('1');
    for (const d of domains) expect((await current(d.base)).assignment_id).toBe(d.assignmentId);

    const moved = await moveAlias(modelId, '2');
    expect(moved.status).toBe(200);
    const shape = (items: any[]) => items.map((a) => [a.domain_id, a.assignment_key, a.model_version, a.follows_alias, a.status]).sort();
    expect(shape(moved.body.repointed)).toEqual(shape(dry.body.repointed));
    expect(shape(moved.body.repointed)).toEqual(domains.map((d) => [d.domainId, 'default', '2', 'champion', 'active']).sort());
    for (const d of domains) {
      const now = await current(d.base);
      expect(now).toMatchObject({ model_version: '2', follows_alias: 'champion' });
      expect(now.assignment_id).not.toBe(d.assignmentId);
      const history = (await h.api('GET', `${d.base}/assignments?status=all`)).body.items;
      expect(history.find((a: any) => a.assignment_id === d.assignmentId)).toMatchObject({ status: 'archived', model_version: '1' });
      const events = await h.knex('webhook_events').where({ type: 'assignment.changed', client_id: d.clientId }).orderBy('seq');
      expect(events.map((e: any) => e.data.model_version)).toEqual(['1', '2']);
    }
    // The next job of a following domain runs the version the alias moved to.
    const run = await h.api('POST', `${domains[0].base}/assignments/default/run`, { body: { input: {} } });
    expect(run.status).toBe(202);
    expect((await h.api('GET', `/v2/jobs/${run.body.job_id}?wait=30`)).body).toMatchObject({ model_version: '2', status: 'success' });
  });

  it('a move that one service blocks changes nothing and names the service per assignment; the dry run answers the same', async () => {
    const modelId = await activeModel(h);
    await addVersion(h, modelId, '3', ECONOMY_ONLY);
    await moveAlias(modelId, '1');
    const domains = await followers(modelId, 3);
    expect((await initService(h, domains[1].base, 'svc-business', { seats: 2, cabin: 'business' })).status).toBe(202);

    const dry = await moveAlias(modelId, '3', '?dry_run=true');
    const refused = await moveAlias(modelId, '3');
    expect(refused.status).toBe(409);
    expect(dry.status).toBe(409);
    expect(dry.body.message).toBe(refused.body.message);
    expect(refused.body.message).toContain(`assignment ${domains[1].assignmentId}`);
    expect(refused.body.message).toContain('svc-business');
    expect(refused.body.message).not.toContain(domains[0].assignmentId);

    expect((await h.api('GET', `/v2/models/${modelId}/aliases/champion`)).body.version).toBe('1');
    for (const d of domains) expect((await current(d.base)).assignment_id).toBe(d.assignmentId);
  });

  it('an assignment starts following an alias only at the version the alias points at (422 otherwise)', async () => {
    const modelId = await activeModel(h);
    await addVersion(h, modelId, '2', FEATURES);
    await moveAlias(modelId, '2');
    const d = await tenantWithDomain(h);
    const wrong = await h.api('PUT', `${d.base}/assignments/default`, {
      body: { model_id: modelId, model_version: '1', follows_alias: 'champion' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toContain('points at version 2');
    const missing = await h.api('PUT', `${d.base}/assignments/default`, {
      body: { model_id: modelId, model_version: '2', follows_alias: 'nobody' },
    });
    expect(missing.status).toBe(422);
  });
});
