import { Harness, uid } from '../../../helpers/harness';
import { FEATURES } from '../../../helpers/fixtures';

describe('clients, domains and feature definitions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  async function client() {
    const id = uid('client');
    expect((await h.api('PUT', `/v2/clients/${id}`, { body: { name: 'Acme' } })).status).toBe(201);
    return id;
  }

  describe('clients', () => {
    it('creates with 201, updates with 200 and keeps the uuid', async () => {
      const id = uid('client');
      const created = await h.api('PUT', `/v2/clients/${id}`, { body: { name: 'Acme' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        client_id: id,
        name: 'Acme',
        status: 'active',
        client_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const updated = await h.api('PUT', `/v2/clients/${id}`, { body: { name: 'Acme Air' } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ name: 'Acme Air', client_uuid: created.body.client_uuid });
      const unnamed = await h.api('PUT', `/v2/clients/${id}`, { body: {} });
      expect(unnamed.body.name).toBe('Acme Air');
    });

    it('reads a client and answers 404 for a missing one', async () => {
      const id = await client();
      expect((await h.api('GET', `/v2/clients/${id}`)).body.client_id).toBe(id);
      const missing = await h.api('GET', `/v2/clients/${uid('nobody')}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ success: false, message: expect.stringContaining('not found') });
    });

    it('suspends and reactivates; refuses other statuses with 400 and missing clients with 404', async () => {
      const id = await client();
      expect((await h.api('PUT', `/v2/clients/${id}/new_status`, { body: { status: 'suspended' } })).body.status).toBe('suspended');
      expect((await h.api('PUT', `/v2/clients/${id}/new_status`, { body: { status: 'active' } })).body.status).toBe('active');
      const bad = await h.api('PUT', `/v2/clients/${id}/new_status`, { body: { status: 'deleted' } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('status');
      expect((await h.api('PUT', `/v2/clients/${uid('nobody')}/new_status`, { body: { status: 'active' } })).status).toBe(404);
    });

    it('refuses unknown fields, wrong types and bad path identifiers with 400', async () => {
      expect((await h.api('PUT', `/v2/clients/${uid()}`, { body: { name: 'x', extra: 1 } })).status).toBe(400);
      expect((await h.api('PUT', `/v2/clients/${uid()}`, { body: { name: 42 } })).status).toBe(400);
      expect((await h.api('PUT', `/v2/clients/${uid()}`, { body: [] })).status).toBe(400);
      expect((await h.api('PUT', `/v2/clients/bad%20id`, { body: {} })).status).toBe(400);
    });

    it('lists clients newest first with a cursor that pages through every one exactly once', async () => {
      const ids = [await client(), await client(), await client()];
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await h.api('GET', `/v2/clients?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items.map((c: any) => c.client_id));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      const positions = ids.map((id) => seen.indexOf(id));
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => b - a));
      expect((await h.api('GET', '/v2/clients?limit=0')).status).toBe(400);
      expect((await h.api('GET', '/v2/clients?cursor=garbage')).status).toBe(400);
      const forged = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', 'not-a-uuid'])).toString('base64url');
      const id = ids[0];
      await h.api('POST', `/v2/clients/${id}/domains`, { body: {} });
      expect((await h.api('GET', `/v2/clients/${id}/domains?cursor=${forged}`)).status).toBe(200);
    });
  });

  describe('domains', () => {
    it('creates a not_ready domain with a generated id when none is given', async () => {
      const id = await client();
      const res = await h.api('POST', `/v2/clients/${id}/domains`, { body: {} });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ client_id: id, status: 'not_ready', domain_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    });

    it('answers a duplicate domain_id with 409 and a missing client with 404', async () => {
      const id = await client();
      expect((await h.api('POST', `/v2/clients/${id}/domains`, { body: { domain_id: 'flights' } })).status).toBe(201);
      const dup = await h.api('POST', `/v2/clients/${id}/domains`, { body: { domain_id: 'flights' } });
      expect(dup.status).toBe(409);
      expect(dup.body.success).toBe(false);
      expect((await h.api('POST', `/v2/clients/${uid('nobody')}/domains`, { body: {} })).status).toBe(404);
    });

    it('moves between not_ready and active and lists and reads domains', async () => {
      const id = await client();
      await h.api('POST', `/v2/clients/${id}/domains`, { body: { domain_id: 'a' } });
      await h.api('POST', `/v2/clients/${id}/domains`, { body: { domain_id: 'b' } });
      expect((await h.api('PUT', `/v2/clients/${id}/domains/a/new_status`, { body: { status: 'active' } })).body.status).toBe('active');
      expect((await h.api('PUT', `/v2/clients/${id}/domains/a/new_status`, { body: { status: 'ready' } })).status).toBe(400);
      expect((await h.api('GET', `/v2/clients/${id}/domains/a`)).body.status).toBe('active');
      const active = await h.api('GET', `/v2/clients/${id}/domains?status=active`);
      expect(active.body.items.map((d: any) => d.domain_id)).toEqual(['a']);
      expect((await h.api('GET', `/v2/clients/${id}/domains`)).body.items).toHaveLength(2);
      expect((await h.api('GET', `/v2/clients/${id}/domains/zzz`)).status).toBe(404);
    });
  });

  describe('feature definitions', () => {
    async function domainWith(features: unknown) {
      const id = await client();
      return { id, res: await h.api('POST', `/v2/clients/${id}/domains`, { body: { domain_id: 'd', features } }) };
    }

    it('stores features and returns them in order', async () => {
      const { id, res } = await domainWith(FEATURES);
      expect(res.status).toBe(201);
      const got = await h.api('GET', `/v2/clients/${id}/domains/d/features`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(FEATURES);
    });

    it.each([
      ['an invalid JSON Schema', [{ name: 'x', json_schema: { type: 'integr' }, mandatory: true }], 'feature "x": json_schema'],
      [
        'a keyword outside the value vocabulary',
        [{ name: 'x', json_schema: { type: 'string', pattern: '^a' }, mandatory: false }],
        'pattern',
      ],
      [
        'a nested keyword outside the vocabulary',
        [{ name: 'x', json_schema: { type: 'array', items: { type: 'object', properties: {} } }, mandatory: false }],
        'items.properties',
      ],
      [
        'a default that fails its own schema',
        [{ name: 'x', json_schema: { type: 'integer', minimum: 5, default: 1 }, mandatory: true }],
        'default',
      ],
      [
        'a duplicate name',
        [
          { name: 'x', json_schema: { type: 'integer' }, mandatory: true },
          { name: 'x', json_schema: { type: 'string' }, mandatory: false },
        ],
        'more than once',
      ],
      ['a bad name', [{ name: '9lives', json_schema: { type: 'integer' }, mandatory: true }], 'name must match'],
    ])('refuses %s with a 422 naming the feature', async (_what, features, fragment) => {
      const { res } = await domainWith(features);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, message: expect.stringContaining('invalid feature definitions') });
      expect(res.body.message).toContain(fragment);
    });

    it('refuses structurally wrong definitions with 400', async () => {
      expect((await domainWith([{ name: 'x', json_schema: { type: 'integer' } }])).res.status).toBe(400);
      expect((await domainWith([{ name: 'x', json_schema: 'integer', mandatory: true }])).res.status).toBe(400);
      expect((await domainWith([{ name: 'x', json_schema: {}, mandatory: 'yes' }])).res.status).toBe(400);
      expect((await domainWith([{ name: 'x', json_schema: {}, mandatory: true, extra: 1 }])).res.status).toBe(400);
    });

    it('replaces features with PUT and returns the live set', async () => {
      const { id } = await domainWith(FEATURES);
      const next = [{ name: 'rows', json_schema: { type: 'integer', default: 30 }, mandatory: false }];
      const res = await h.api('PUT', `/v2/clients/${id}/domains/d/features`, { body: { features: next } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ features: next, feature_mismatches: [] }); // no default assignment: no freeze to disagree with
      expect((await h.api('GET', `/v2/clients/${id}/domains/d/features`)).body).toEqual(next);
    });

    it('leaves the stored features untouched when a replacement is invalid', async () => {
      const { id } = await domainWith(FEATURES);
      const bad = await h.api('PUT', `/v2/clients/${id}/domains/d/features`, {
        body: { features: [{ name: 'x', json_schema: { type: 'nope' }, mandatory: true }] },
      });
      expect(bad.status).toBe(422);
      expect((await h.api('GET', `/v2/clients/${id}/domains/d/features`)).body).toEqual(FEATURES);
      expect((await h.api('PUT', `/v2/clients/${id}/domains/missing/features`, { body: { features: [] } })).status).toBe(404);
    });
  });
});
