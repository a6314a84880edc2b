import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startDevRunner } from '../../src/dev/runner';
import { freePort } from '../../src/dev/temporal/dev-server';
import { testEnv } from '../helpers/test-env';
import { TEST_SECRET_KEYS } from '../helpers/secret-keys';

const root = path.resolve(__dirname, '../..');
const bundle = () => ({ codePath: testEnv.workflowBundlePath });

async function get(url: string, token?: string) {
  const res = await fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text() };
}

const mode = (dir: string) => (statSync(dir).mode & 0o777).toString(8);
/** The data folder and those in it: the signing key and the database are their owner's alone. */
const modes = (dataDir: string) =>
  Object.fromEntries(['.', 'postgres', 'dev-auth', 'dev-secrets', 'temporal'].map((dir) => [dir, mode(path.join(dataDir, dir))]));
// Run as root, Postgres runs as the postgres user: it may pass through the data folder (0710, its group) to its own.
const PRIVATE_MODES = {
  '.': process.getuid?.() === 0 ? '710' : '700',
  postgres: '700',
  'dev-auth': '700',
  'dev-secrets': '700',
  temporal: '700',
};
const KEY_FILES = ['dev-auth/signing-key.jwk.json', 'dev-secrets/secret-keys'];

describe('npm start (the dev runner)', () => {
  it('starts embedded Postgres, the Temporal dev server with its UI and a dev key in owner-only folders, keeps data across restarts, and stops them all', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-dev-'));
    chmodSync(tmp, 0o755); // like a project checkout: other users (the postgres user, when run as root) may enter it
    const dataDir = path.join(tmp, 'data');
    const ports = { grpc: await freePort(), ui: await freePort() };
    const env = { PORT: '0', LOG_LEVEL: 'silent' };
    try {
      const first = await startDevRunner({ env, root, dataDir, temporalPorts: ports, workflowBundle: bundle() });
      try {
        expect(first.started).toEqual(['postgres', 'temporal', 'dev-auth', 'dev-secrets']);
        expect(modes(dataDir)).toEqual(PRIVATE_MODES);
        expect(KEY_FILES.map((file) => mode(path.join(dataDir, file)))).toEqual(['600', '600']);
        expect(await get(`${first.apiUrl}/v2/health`)).toEqual({
          status: 200,
          body: { status: 'ok', database: 'ok', temporal: 'ok', job_starts: 'ok' },
        });
        expect((await get(first.temporalUiUrl!)).status).toBe(200);
        const created = await fetch(`${first.apiUrl}/v2/clients/persisted`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${first.adminToken}`, 'Content-Type': 'application/json' },
          body: '{"name":"kept"}',
        });
        expect(created.status).toBe(201);
      } finally {
        await first.stop();
      }
      await expect(fetch(`${first.apiUrl}/v2/health`)).rejects.toThrow();
      const secretKeys = readFileSync(path.join(dataDir, 'dev-secrets/secret-keys'), 'utf8');

      const second = await startDevRunner({ env, root, dataDir, temporalPorts: ports, workflowBundle: bundle() });
      try {
        const kept = await get(`${second.apiUrl}/v2/clients/persisted`, second.adminToken);
        expect(kept.body).toMatchObject({ client_id: 'persisted', name: 'kept' });
        // The same dev key signs both runs, so a token from the first run still works.
        expect((await get(`${second.apiUrl}/v2/clients/persisted`, first.adminToken)).status).toBe(200);
        // And the same dev key seals webhook secrets, so those of the first run still open.
        expect(readFileSync(path.join(dataDir, 'dev-secrets/secret-keys'), 'utf8')).toBe(secretKeys);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120000);

  it('uses the given Postgres, Temporal and identity provider and starts nothing else', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mos-dev-'));
    const runner = await startDevRunner({
      env: {
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: testEnv.databaseUrl,
        DATABASE_POOL_MAX: '4',
        TEMPORAL_ADDRESS: testEnv.temporalAddress,
        AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
        AUTH_ISSUER: 'https://idp.example/',
        SECRET_KEYS: TEST_SECRET_KEYS,
        TEMPORAL_TASK_QUEUE: 'dev-runner-test',
        WEBHOOK_DISPATCHER: 'off',
      },
      root,
      dataDir,
      workflowBundle: bundle(),
    });
    try {
      expect(runner.started).toEqual([]);
      expect(runner.adminToken).toBeUndefined();
      expect(runner.temporalAddress).toBe(testEnv.temporalAddress);
      expect((await get(`${runner.apiUrl}/v2/health`)).status).toBe(200);
    } finally {
      await runner.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a busy PORT before it starts anything, naming the setting', async () => {
    const busy = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => busy.listen(port, resolve));
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-dev-port-'));
    try {
      const started = startDevRunner({
        env: { PORT: String(port), LOG_LEVEL: 'silent' },
        root,
        dataDir: path.join(tmp, 'data'),
        workflowBundle: bundle(),
      });
      await expect(started).rejects.toThrow(`port ${port} is in use`);
      await expect(started).rejects.toThrow(`set PORT, e.g. PORT=${port + 1} npm start`);
      // Refused before embedded Postgres made its data folder.
      expect(() => statSync(path.join(tmp, 'data', 'postgres'))).toThrow();
    } finally {
      await new Promise((resolve) => busy.close(resolve));
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
