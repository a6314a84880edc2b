import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createKnex, migrateLatest } from '../../../src/db/knex';
import { migrationSource, migrationSourceWith } from '../../../migrations';
import { createSecretBox, sealedKeyId } from '../../../src/secrets/secret-box';
import { parseSecretKeys } from '../../../src/secrets/secret-keys';
import { newSecret } from '../../../src/webhooks/signature';
import { createWebhookDeliveries } from '../../../src/domain/webhooks/webhook-deliveries';
import { Harness } from '../../helpers/harness';
import { tenantWithDomain } from '../../helpers/fixtures';
import { ownDatabase } from '../../helpers/own-temporal';
import { TEST_SECRET_KEYS } from '../../helpers/secret-keys';
import { spawnApiProcess, spawnWorkerProcess } from '../../helpers/worker-process';
import { testEnv } from '../../helpers/test-env';

const root = path.resolve(__dirname, '../../..');
const testBox = createSecretBox(parseSecretKeys(TEST_SECRET_KEYS));
/** The key bytes of a `whsec_` secret: what would sign for the receiver if it leaked. */
const keyPart = (secret: string) => secret.slice('whsec_'.length);

describe('webhook secrets at rest', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32' } });
  });
  afterAll(() => h.stop());

  it('are stored sealed: the row holds neither the shown secret nor the rotated one, and they open with SECRET_KEYS', async () => {
    const { clientId } = await tenantWithDomain(h);
    const created = await h.api('POST', `/v2/clients/${clientId}/webhooks`, {
      body: { url: 'http://127.0.0.1:9/hook', event_types: ['job.failed'] },
    });
    expect(created.status).toBe(201);
    const rotated = await h.api('POST', `/v2/clients/${clientId}/webhooks/${created.body.webhook_id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const row = await h.knex('webhook_endpoints').where({ webhook_id: created.body.webhook_id }).first();
    const stored = JSON.stringify(row);
    for (const shown of [created.body.secret, rotated.body.secret]) expect(stored).not.toContain(keyPart(shown));
    expect(sealedKeyId(row.secret_sealed)).toBe('test-1');
    expect(testBox.open(row.secret_sealed)).toBe(rotated.body.secret);
    expect(testBox.open(row.previous_secret_sealed)).toBe(created.body.secret);
    // Shown once: never in a read.
    expect((await h.api('GET', `/v2/clients/${clientId}/webhooks/${created.body.webhook_id}`)).body).not.toHaveProperty('secret');
  });

  it('cannot be written in plain text: the database refuses it', async () => {
    const { clientId } = await tenantWithDomain(h);
    const created = await h.api('POST', `/v2/clients/${clientId}/webhooks`, {
      body: { url: 'http://127.0.0.1:9/hook', event_types: ['job.failed'] },
    });
    const write = h.knex('webhook_endpoints').where({ webhook_id: created.body.webhook_id }).update({ secret_sealed: newSecret() });
    await expect(write).rejects.toThrow(/webhook_endpoints_secrets_sealed/);
  });

  it('a delivery whose secret is sealed under a key no longer configured fails its attempt, saying which key, and sends nothing', async () => {
    const { clientId } = await tenantWithDomain(h);
    const created = await h.api('POST', `/v2/clients/${clientId}/webhooks`, {
      body: { url: 'http://127.0.0.1:9/hook', event_types: ['job.failed'] },
    });
    // No worker in this harness: the ping's delivery stays pending for the attempt made here.
    const ping = await h.api('POST', `/v2/clients/${clientId}/webhooks/${created.body.webhook_id}/ping`);
    expect(ping.status).toBe(202);
    const withoutTheKey = createWebhookDeliveries({
      knex: h.knex,
      config: h.config.webhooks,
      secrets: createSecretBox(parseSecretKeys(`k2=${randomBytes(32).toString('base64')}`)),
      jobUiUrl: () => null,
    });
    const outcome = await withoutTheKey.attempt(ping.body.delivery_id, () => null);
    expect(outcome).toMatchObject({ outcome: 'failed', refused: false });
    const delivery = await h.api('GET', `/v2/clients/${clientId}/webhooks/${created.body.webhook_id}/deliveries/${ping.body.delivery_id}`);
    expect(delivery.body.attempt_log).toEqual([
      expect.objectContaining({
        status_code: null,
        error: 'cannot sign: a secret is sealed under key "test-1", which SECRET_KEYS does not hold',
      }),
    ]);
  });
});

describe('sealing the secrets of an existing database, and a key rotation', () => {
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let knex: ReturnType<typeof createKnex>;
  const SEALING = '20261231000000_sealed_webhook_secrets';
  // Rolls back the later migrations too, one at a time, until `name` is undone.
  async function rollBackThrough(db: typeof knex, name: string, source: typeof migrationSource) {
    for (;;) {
      const [done] = (await db.migrate.list({ migrationSource: source })) as [{ name: string }[] | string[], unknown];
      const names = done.map((m) => (typeof m === 'string' ? m : m.name));
      if (!names.includes(name)) return;
      await db.migrate.down({ migrationSource: source });
    }
  }
  beforeAll(async () => {
    db = await ownDatabase();
    knex = createKnex(db.url, { max: 2 });
  });
  afterAll(async () => {
    await knex.destroy();
    await db.drop();
  });

  it('the migration seals plain-text rows, stops naming SECRET_KEYS without keys, and its rollback opens them again', async () => {
    // The database as the previous release left it: secrets in plain text.
    await rollBackThrough(knex, SEALING, migrationSource);
    const plain = { current: newSecret(), previous: newSecret() };
    await knex('webhook_endpoints').insert([
      { webhook_id: '0190d5e0-0000-7000-8000-000000000001', url: 'https://a.example/', event_types: ['job.failed'], secret: plain.current },
      {
        webhook_id: '0190d5e0-0000-7000-8000-000000000002',
        url: 'https://b.example/',
        event_types: ['job.failed'],
        secret: plain.current,
        previous_secret: plain.previous,
        previous_secret_expires_at: new Date(Date.now() + 3600_000),
      },
    ]);

    await expect(migrateLatest(knex)).rejects.toThrow(/holds 3 signing secrets to convert: set SECRET_KEYS/);
    expect(await migrateLatest(knex, testBox)).toContain(SEALING);
    const rows = await knex('webhook_endpoints').orderBy('webhook_id');
    expect(JSON.stringify(rows)).not.toContain(keyPart(plain.current));
    expect(JSON.stringify(rows)).not.toContain(keyPart(plain.previous));
    expect(rows.map((r) => [testBox.open(r.secret_sealed), r.previous_secret_sealed && testBox.open(r.previous_secret_sealed)])).toEqual([
      [plain.current, null],
      [plain.current, plain.previous],
    ]);

    await rollBackThrough(knex, SEALING, migrationSourceWith(testBox));
    expect((await knex('webhook_endpoints').orderBy('webhook_id')).map((r) => [r.secret, r.previous_secret])).toEqual([
      [plain.current, null],
      [plain.current, plain.previous],
    ]);
    await migrateLatest(knex, testBox);
  });

  it('npm run secrets:reseal moves every secret under the new first key, after which the old key can go', async () => {
    const before = await knex('webhook_endpoints').orderBy('webhook_id');
    expect(before.length).toBeGreaterThan(0);
    const newKey = `k2=${randomBytes(32).toString('base64')}`;
    const env = { ...process.env, DATABASE_URL: db.url, SECRET_KEYS: `${newKey},${TEST_SECRET_KEYS}` };
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/src/bin/reseal-secrets.js'], { cwd: root, env });
    expect(stdout).toContain('resealed 3 secret(s) under key "k2"');
    expect(stdout).toMatch(/key "k2": 3 secret\(s\)\n\s+key "test-1": 0 secret\(s\)/);

    const onlyNew = createSecretBox(parseSecretKeys(newKey));
    const after = await knex('webhook_endpoints').orderBy('webhook_id');
    expect(after.map((r) => [onlyNew.open(r.secret_sealed), r.previous_secret_sealed && onlyNew.open(r.previous_secret_sealed)])).toEqual(
      before.map((r) => [testBox.open(r.secret_sealed), r.previous_secret_sealed && testBox.open(r.previous_secret_sealed)]),
    );
    const again = await promisify(execFile)(process.execPath, ['dist/src/bin/reseal-secrets.js'], { cwd: root, env });
    expect(again.stdout).toContain('resealed 0 secret(s)');
  });
});

describe('production processes without SECRET_KEYS', () => {
  const env = {
    DATABASE_URL: testEnv.databaseUrl,
    TEMPORAL_ADDRESS: testEnv.temporalAddress,
    AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
    AUTH_ISSUER: 'https://idp.example/',
    SECRET_KEYS: '',
  };

  it('the API refuses to start, naming it', async () => {
    await expect(spawnApiProcess(env)).rejects.toThrow(/exited with 1 before it ran:[\s\S]*missing required settings: SECRET_KEYS/);
  });

  it('the worker refuses to start, naming it', async () => {
    await expect(spawnWorkerProcess(env)).rejects.toThrow(/exited with 1 before it ran:[\s\S]*SECRET_KEYS is required/);
  });
});
