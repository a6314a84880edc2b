import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel, addVersion, FEATURES } from '../../../helpers/fixtures';

const artifact = (format: string, n: number) => ({
  name: 'model',
  uri: `s3://ml-models/${format}/${n}/model.bin`,
  sha256: String(n).padStart(64, 'a'),
  size_bytes: 1000 + n,
  format,
});

describe('registry: tags and search', () => {
  let h: Harness;
  const tenant = uid('acme');
  beforeAll(async () => {
    h = await Harness.start({
      env: {
        MACHINE_CLIENTS: JSON.stringify({ [PLATFORM_CLIENT]: { access: 'platform' }, [tenant]: { access: 'tenant', tenants: [tenant] } }),
      },
    });
  });
  afterAll(() => h.stop());

  const tagModel = (modelId: string, key: string, value: string) => h.api('PUT', `/v2/models/${modelId}/tags/${key}`, { body: { value } });
  const tagVersion = (modelId: string, version: string, key: string, value: string) =>
    h.api('PUT', `/v2/models/${modelId}/versions/${version}/tags/${key}`, { body: { value } });
  /** Every item of a search, page by page (limit 2), in the order the pages give them. */
  const all = async (path: string) => {
    const items: any[] = [];
    let cursor: string | null = '';
    do {
      const res: any = await h.api('GET', `${path}&limit=2&cursor=${encodeURIComponent(cursor ?? '')}`);
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      cursor = res.body.next_cursor;
    } while (cursor);
    return items;
  };
  const versionKeys = (items: any[]) => items.map((v) => `${v.model_id}@${v.version}`);

  it('sets, replaces and deletes tags of a model and of a version; a change moves updated_at; tags can be given at creation', async () => {
    const modelId = await activeModel(h);
    const before = (await h.api('GET', `/v2/models/${modelId}`)).body.model.updated_at;
    const set = await tagModel(modelId, 'team', 'fraud');
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: modelId, tags: { team: 'fraud' } });
    expect(set.body.updated_at >= before).toBe(true);
    expect((await tagModel(modelId, 'team', 'risk')).body.tags).toEqual({ team: 'risk' });
    expect((await tagModel(modelId, 'stage', '')).body.tags).toEqual({ team: 'risk', stage: '' });
    expect((await h.api('GET', `/v2/models/${modelId}`)).body.model.tags).toEqual({ team: 'risk', stage: '' });
    const removed = await h.api('DELETE', `/v2/models/${modelId}/tags/team`);
    expect([removed.status, removed.body.tags]).toEqual([200, { stage: '' }]);

    // A version's tags change whatever its status (artifacts do not, once active).
    expect((await tagVersion(modelId, '1', 'dataset', 's3://fares/2026-07')).body).toMatchObject({
      status: 'active',
      tags: { dataset: 's3://fares/2026-07' },
    });
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1`)).body.tags).toEqual({ dataset: 's3://fares/2026-07' });
    expect((await h.api('DELETE', `/v2/models/${modelId}/versions/1/tags/dataset`)).body.tags).toEqual({});

    const created = await h.api('POST', '/v2/models', {
      body: {
        id: uid('model'),
        name: 'tagged',
        description: '',
        metadata: {},
        handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
        tags: { team: 'fraud' },
        version_tags: { dataset: 'd1' },
      },
    });
    expect(created.status).toBe(201);
    expect([created.body.model.tags, created.body.version.tags]).toEqual([{ team: 'fraud' }, { dataset: 'd1' }]);
    const v2 = await h.api('POST', `/v2/models/${created.body.model.id}/versions`, {
      body: { version: '2', features: FEATURES, tags: { dataset: 'd2' } },
    });
    expect(v2.body.tags).toEqual({ dataset: 'd2' });
  });

  it('holds at most 50 tags: a 51st key is a 400 naming the field, a new value of a key already set still fits', async () => {
    const modelId = await activeModel(h);
    for (let i = 0; i < 50; i++) expect((await tagVersion(modelId, '1', `k${i}`, 'v')).status).toBe(200);
    const refused = await tagVersion(modelId, '1', 'k50', 'v');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('tag_key');
    expect(refused.body.message).toContain('50 tags');
    expect((await tagVersion(modelId, '1', 'k7', 'changed')).body.tags.k7).toBe('changed');
    expect(Object.keys((await h.api('GET', `/v2/models/${modelId}/versions/1`)).body.tags)).toHaveLength(50);

    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    // The database holds the same bound, whoever writes.
    await expect(
      h
        .knex('model_versions')
        .where({ model_id: modelId, version: '1' })
        .update({ tags: JSON.stringify(tooMany) }),
    ).rejects.toThrow(/model_versions_tags_valid/);
    const atCreation = await h.api('POST', `/v2/models/${modelId}/versions`, { body: { version: '2', features: FEATURES, tags: tooMany } });
    expect(atCreation.status).toBe(400);
    expect(atCreation.body.message).toContain('tags');
  });

  it('lets one of two writers racing for the last free tag win, the other answering 400', async () => {
    const modelId = await activeModel(h);
    for (let i = 0; i < 49; i++) expect((await tagModel(modelId, `k${i}`, 'v')).status).toBe(200);
    const raced = await Promise.all([tagModel(modelId, 'left', 'v'), tagModel(modelId, 'right', 'v')]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(Object.keys((await h.api('GET', `/v2/models/${modelId}`)).body.model.tags)).toHaveLength(50);
  });

  it.each([
    ['a key with a space', 'bad%20key', { value: 'v' }, 'tag_key'],
    ['a key starting with a dash', '-key', { value: 'v' }, 'tag_key'],
    ['a value of 257 characters', 'key', { value: 'x'.repeat(257) }, 'value'],
    ['a control character in the value', 'key', { value: 'a\u0000b' }, 'value'],
    ['no value', 'key', {}, 'value'],
  ])('refuses a tag with %s (400 naming the field)', async (_what, key, body, field) => {
    const modelId = await activeModel(h);
    for (const path of [`/v2/models/${modelId}/tags/${key}`, `/v2/models/${modelId}/versions/1/tags/${key}`]) {
      const res = await h.api('PUT', path, { body });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    }
  });

  it('answers 404 for a tag of a missing model or version, and for deleting a tag that is not set', async () => {
    const modelId = await activeModel(h);
    const missing = [
      await tagModel('no-such-model', 'team', 'x'),
      await tagVersion(modelId, '9', 'team', 'x'),
      await h.api('DELETE', `/v2/models/${modelId}/tags/team`),
      await h.api('DELETE', `/v2/models/${modelId}/versions/1/tags/team`),
    ];
    expect(missing.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect(missing[2].body.message).toContain('no tag team');
  });

  it('refuses tag writes to callers bound to tenants (403), and lets their users read and search the registry', async () => {
    const modelId = await activeModel(h);
    await tagModel(modelId, 'suite', modelId);
    const tenantClient = await h.idp.machine(tenant, ['admin']);
    const tenantUser = await h.idp.human('dana', [`client:${tenant}`], ['admin']);
    for (const token of [tenantClient, tenantUser]) {
      const writes = [
        await h.api('PUT', `/v2/models/${modelId}/tags/team`, { token, body: { value: 'x' } }),
        await h.api('DELETE', `/v2/models/${modelId}/tags/suite`, { token }),
        await h.api('PUT', `/v2/models/${modelId}/versions/1/tags/team`, { token, body: { value: 'x' } }),
        await h.api('DELETE', `/v2/models/${modelId}/versions/1/tags/team`, { token }),
      ];
      expect(writes.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    }
    expect((await h.api('GET', `/v2/models/${modelId}`)).body.model.tags).toEqual({ suite: modelId });
    const reader = await h.idp.human('erin', [`client:${tenant}`], ['read_models']);
    const models = await h.api('GET', `/v2/models?tag=suite=${modelId}`, { token: reader });
    expect(models.body.items.map((m: any) => m.id)).toEqual([modelId]);
    expect((await h.api('GET', `/v2/model-versions?model_id=${modelId}`, { token: reader })).body.items).toHaveLength(1);
    // Tenant machine clients do not use the registry routes (docs/authorization.md).
    expect((await h.api('GET', `/v2/model-versions?model_id=${modelId}`, { token: tenantClient })).status).toBe(403);
  });

  it('finds versions across models by tag, metadata, alias, artifact format, status, model and version prefix, page by page', async () => {
    const suite = uid('suite');
    const [a, b] = [await activeModel(h), await activeModel(h)];
    for (const [modelId, version, format, metadata] of [
      [a, 'v2', 'onnx', { dataset: { name: suite }, epochs: 10 }],
      [a, 'v3', 'torchscript', { dataset: { name: 'other' }, epochs: '10' }],
      [b, 'v2', 'onnx', { dataset: { name: suite }, epochs: 12 }],
    ] as const) {
      const res = await h.api('POST', `/v2/models/${modelId}/versions`, {
        body: { version, features: FEATURES, metadata, artifacts: [artifact(`${format}-${suite.slice(-10)}`, 1)] },
      });
      expect(res.status).toBe(201);
      await h.api('PUT', `/v2/models/${modelId}/versions/${version}/new_status`, { body: { status: 'active' } });
      expect((await tagVersion(modelId, version, 'suite', suite)).status).toBe(200);
    }
    await tagVersion(a, 'v3', 'team', 'fraud');
    await h.api('PUT', `/v2/models/${b}/aliases/champion`, { body: { version: 'v2' } });
    await h.api('PUT', `/v2/models/${a}/versions/v3/new_status`, { body: { status: 'deprecated' } });

    const q = `/v2/model-versions?tag=suite=${suite}`;
    // Newest first across models, each once, through pages of two.
    expect(versionKeys(await all(q))).toEqual([`${b}@v2`, `${a}@v3`, `${a}@v2`]);
    expect(versionKeys(await all(`/v2/model-versions?tag=suite`)).filter((k) => k.startsWith(a) || k.startsWith(b))).toHaveLength(3);
    expect(versionKeys(await all(`${q}&metadata=dataset.name=${suite}`))).toEqual([`${b}@v2`, `${a}@v2`]);
    // A value that reads as a number matches it written as a number or as text.
    expect(versionKeys(await all(`${q}&metadata=epochs=10`))).toEqual([`${a}@v3`, `${a}@v2`]);
    expect(versionKeys(await all(`${q}&alias=champion`))).toEqual([`${b}@v2`]);
    expect(versionKeys(await all(`${q}&artifact_format=onnx-${suite.slice(-10)}`))).toEqual([`${b}@v2`, `${a}@v2`]);
    expect(versionKeys(await all(`${q}&status=deprecated`))).toEqual([`${a}@v3`]);
    expect(versionKeys(await all(`${q}&model_id=${a}&version_prefix=v`))).toEqual([`${a}@v3`, `${a}@v2`]);
    expect(versionKeys(await all(`/v2/model-versions?tag=team=fraud&model_id=${a}`))).toEqual([`${a}@v3`]);
  });

  it('pages versions whose model id and version string are as long as allowed', async () => {
    const modelId = uid('m').padEnd(128, 'x');
    await activeModel(h, { id: modelId });
    const long = 'v'.padEnd(128, '9');
    await addVersion(h, modelId, long, FEATURES, false);
    const first = await h.api('GET', `/v2/model-versions?model_id=${modelId}&limit=1`);
    expect(first.body.items.map((v: any) => v.version)).toEqual([long]);
    const second = await h.api('GET', `/v2/model-versions?model_id=${modelId}&limit=1&cursor=${first.body.next_cursor}`);
    expect([second.status, second.body.items.map((v: any) => v.version)]).toEqual([200, ['1']]);
  });

  it('finds versions and models by created and updated ranges, and sorts by the last change', async () => {
    const suite = uid('suite');
    const modelId = await activeModel(h);
    await addVersion(h, modelId, '2', FEATURES);
    await addVersion(h, modelId, '3', FEATURES);
    for (const v of ['1', '2', '3']) await tagVersion(modelId, v, 'suite', suite);
    const versions = (await h.api('GET', `/v2/model-versions?model_id=${modelId}`)).body.items;
    const created2 = versions.find((v: any) => v.version === '2').created_at;
    const q = `/v2/model-versions?tag=suite=${suite}`;
    expect(versionKeys(await all(`${q}&created_after=${created2}`))).toEqual([`${modelId}@3`, `${modelId}@2`]);
    expect(versionKeys(await all(`${q}&created_before=${created2}`))).toEqual([`${modelId}@1`]);

    // Version 1 changes last: first by updated_at, and alone after the instant of that change.
    const changed = await tagVersion(modelId, '1', 'note', 'retrained');
    expect(versionKeys(await all(`${q}&sort=updated_at`))[0]).toBe(`${modelId}@1`);
    expect(versionKeys(await all(`${q}&updated_after=${changed.body.updated_at}`))).toEqual([`${modelId}@1`]);
    expect(versionKeys(await all(`${q}&updated_before=${changed.body.updated_at}`))).toEqual([`${modelId}@3`, `${modelId}@2`]);

    await tagModel(modelId, 'suite', suite);
    const model = (await h.api('GET', `/v2/models/${modelId}`)).body.model;
    const models = await all(
      `/v2/models?tag=suite=${suite}&created_after=${model.created_at}&updated_after=${model.updated_at}&sort=updated_at`,
    );
    expect(models.map((m) => m.id)).toEqual([modelId]);
    expect(await all(`/v2/models?tag=suite=${suite}&created_before=${model.created_at}`)).toEqual([]);
  });

  it('finds models by name prefix, tag, metadata, alias, artifact format and status', async () => {
    const suite = uid('suite');
    const ids = [`${suite}-a`, `${suite}-b`, `${suite}-c`];
    for (const id of ids) {
      await activeModel(h, { id });
      await tagModel(id, 'suite', suite);
    }
    await h.api('PUT', `/v2/models/${ids[0]}`, { body: { name: `${suite} alpha`, metadata: { owner: { team: suite } } } });
    await h.api('PUT', `/v2/models/${ids[1]}`, { body: { name: `${suite} beta` } });
    await h.api('PUT', `/v2/models/${ids[2]}`, { body: { name: `${suite}_gamma` } });
    await tagModel(ids[1], 'tier', 'gold');
    await h.api('PUT', `/v2/models/${ids[2]}/aliases/challenger`, { body: { version: '1' } });
    await h.api('POST', `/v2/models/${ids[1]}/versions`, {
      body: { version: '2', features: FEATURES, artifacts: [artifact(`f-${suite.slice(-10)}`, 2)] },
    });
    const pending = `${suite}-d`;
    await h.api('POST', '/v2/models', {
      body: {
        id: pending,
        name: `${suite} delta`,
        description: '',
        metadata: {},
        handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
        tags: { suite },
      },
    });

    const names = async (query: string) => (await all(`/v2/models?tag=suite=${suite}&${query}`)).map((m) => m.id);
    expect(await names('status=active')).toEqual([ids[2], ids[1], ids[0]]);
    expect(await names('status=pending')).toEqual([pending]);
    // The prefix is text, not a pattern: `_` matches only itself.
    expect(await names(`name_prefix=${suite}_`)).toEqual([ids[2]]);
    expect(await names(`name_prefix=${encodeURIComponent(`${suite} `)}`)).toEqual([pending, ids[1], ids[0]]);
    expect((await all(`/v2/models?tag=tier=gold&name_prefix=${suite}`)).map((m) => m.id)).toEqual([ids[1]]);
    expect(await names(`metadata=owner.team=${suite}`)).toEqual([ids[0]]);
    expect(await names('alias=challenger')).toEqual([ids[2]]);
    expect(await names(`artifact_format=f-${suite.slice(-10)}`)).toEqual([ids[1]]);
  });

  it.each([
    ['a tag key with a space', 'tag=bad%20key=x', 'tag'],
    ['a metadata filter without =', 'metadata=dataset', 'metadata'],
    ['a metadata path with an empty key', 'metadata=a..b=1', 'metadata'],
    ['a metadata path of nine keys', 'metadata=a.b.c.d.e.f.g.h.i=1', 'metadata'],
    ['an alias with capitals', 'alias=Champion', 'alias'],
    ['an artifact format with a slash', 'artifact_format=a%2Fb', 'artifact_format'],
    ['a range that is no instant', 'created_after=yesterday', 'created_after'],
    ['an unknown order', 'sort=name', 'sort'],
    ['a damaged cursor', 'cursor=not-a-cursor', 'cursor'],
    ['a tag given twice', 'tag=a&tag=b', 'tag'],
  ])('refuses a search with %s (400 naming the parameter)', async (_what, query, field) => {
    for (const path of ['/v2/models', '/v2/model-versions']) {
      const res = await h.api('GET', `${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    }
  });
});
