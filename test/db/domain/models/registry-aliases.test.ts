import { Harness, uid } from '../../../helpers/harness';
import { activeModel, addVersion, FEATURES } from '../../../helpers/fixtures';

describe('registry: aliases', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  const put = (modelId: string, alias: string, body: object) => h.api('PUT', `/v2/models/${modelId}/aliases/${alias}`, { body });
  const withVersions = async (...versions: string[]) => {
    const modelId = await activeModel(h);
    for (const v of versions) await addVersion(h, modelId, v, FEATURES);
    return modelId;
  };

  it('creates, resolves, lists, moves and deletes an alias, each change a webhook event', async () => {
    const modelId = await withVersions('2');
    const created = await put(modelId, 'champion', { version: '1' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      model_id: modelId,
      alias: 'champion',
      version: '1',
      resolved: { version: '1', status: 'active' },
    });
    expect((await h.api('GET', `/v2/models/${modelId}/aliases/champion`)).body.resolved).toMatchObject({ model_id: modelId, version: '1' });

    expect((await put(modelId, 'champion', { version: '2', from_version: '1' })).body.version).toBe('2');
    expect((await put(modelId, 'challenger', { version: '1' })).status).toBe(200);
    const list = await h.api('GET', `/v2/models/${modelId}/aliases`);
    expect(list.body.items.map((a: any) => [a.alias, a.version])).toEqual([
      ['challenger', '1'],
      ['champion', '2'],
    ]);

    expect((await h.api('DELETE', `/v2/models/${modelId}/aliases/challenger`)).body.version).toBe('1');
    expect((await h.api('GET', `/v2/models/${modelId}/aliases/challenger`)).status).toBe(404);
    const moves = (await h.knex('webhook_events').where({ type: 'alias.moved', model_id: modelId }).orderBy('seq')).map((e: any) => [
      e.data.alias,
      e.data.previous_version,
      e.data.version,
    ]);
    expect(moves).toEqual([
      ['champion', null, '1'],
      ['champion', '1', '2'],
      ['challenger', null, '1'],
      ['challenger', '1', null],
    ]);
  });

  it.each([
    ['capitals', 'Champion'],
    ['a digit first', '2nd'],
    ['a dot', 'champ.ion'],
  ])('refuses an alias name with %s with a 400 naming it', async (_what, name) => {
    const modelId = await activeModel(h);
    const res = await put(modelId, name, { version: '1' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`alias "${name}"`);
  });

  it('keeps alias names and version strings apart: 400 for an alias named like a version, 409 for a version named like an alias', async () => {
    const modelId = await withVersions('stable');
    const alias = await put(modelId, 'stable', { version: '1' });
    expect(alias.status).toBe(400);
    expect(alias.body.message).toContain('collides with version stable');
    expect((await put(modelId, 'champion', { version: '1' })).status).toBe(200);
    const version = await h.api('POST', `/v2/models/${modelId}/versions`, { body: { version: 'champion', features: FEATURES } });
    expect(version.status).toBe(409);
    expect(version.body.message).toContain('is an alias');
  });

  it('refuses to alias a deprecated, archived or missing version (422 naming it)', async () => {
    const modelId = await withVersions('2');
    await h.api('PUT', `/v2/models/${modelId}/versions/2/new_status`, { body: { status: 'deprecated' } });
    const deprecated = await put(modelId, 'champion', { version: '2' });
    expect(deprecated.status).toBe(422);
    expect(deprecated.body.message).toContain(`${modelId}@2 is deprecated`);
    expect((await put(modelId, 'champion', { version: '9' })).status).toBe(422);
    expect((await h.api('GET', `/v2/models/${modelId}/aliases/champion`)).status).toBe(404);
  });

  it('two racing moves from the same version: one wins, the other is 409, never a half-moved alias', async () => {
    const modelId = await withVersions('2', '3');
    await put(modelId, 'champion', { version: '1' });
    const [a, b] = await Promise.all([
      put(modelId, 'champion', { version: '2', from_version: '1' }),
      put(modelId, 'champion', { version: '3', from_version: '1' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? '2' : '3';
    expect((await h.api('GET', `/v2/models/${modelId}/aliases/champion`)).body.version).toBe(winner);
    expect((a.status === 409 ? a : b).body.message).toContain('another move came first');
  });

  it('an aliased version cannot be deleted or archived (409 naming the alias)', async () => {
    const modelId = await withVersions('2');
    await put(modelId, 'challenger', { version: '2' });
    const deleted = await h.api('DELETE', `/v2/models/${modelId}/versions/2`);
    expect(deleted.status).toBe(409);
    expect(deleted.body.message).toContain('aliases challenger');
    const archived = await h.api('PUT', `/v2/models/${modelId}/versions/2/new_status`, { body: { status: 'archived' } });
    expect(archived.status).toBe(409);
    expect(archived.body.message).toContain('challenger');
    expect((await h.api('DELETE', `/v2/models/${modelId}`)).status).toBe(409);
    expect((await h.api('GET', `/v2/models/${uid('nope')}/aliases`)).status).toBe(404);
  });
});
