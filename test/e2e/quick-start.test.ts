import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { startDevRunner, DevRunner } from '../../src/dev/runner';
import { testEnv } from '../helpers/test-env';
import { uid } from '../helpers/harness';

const root = path.resolve(__dirname, '../..');

/** The bash blocks of the README's quick start, in order. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map(([, code]) => code);
}

/**
 * The README's quick start, run as written against a fresh dev runner (the npm start code path, with this
 * run's Postgres and Temporal): only the two `export` lines that say "paste here" get this runner's values.
 * `npm run test:cluster` runs it against a multi-node Temporal cluster that requires mTLS.
 */
describe('the README quick start', () => {
  let runner: DevRunner;
  let dataDir: string;
  // A database of its own, as after a fresh npm start: the README's names (acme, scorer) meet no other test's data.
  const database = `mos_quick_start_${process.pid}`;
  const admin = () => knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'mos-quick-start-'));
    const db = admin();
    await db.raw(`CREATE DATABASE ${database}`).finally(() => db.destroy());
    const url = new URL(testEnv.databaseUrl);
    url.pathname = `/${database}`;
    runner = await startDevRunner({
      env: {
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: url.toString(),
        DATABASE_POOL_MAX: '4',
        TEMPORAL_ADDRESS: testEnv.temporalAddress,
        // With TEST_TEMPORAL=cluster (npm run test:cluster), the client certificate the cluster's frontends require.
        ...testEnv.temporalTlsEnv,
        TEMPORAL_TASK_QUEUE: uid('quick-start'),
        MACHINE_CLIENTS: '{"acme": {"access": "tenant", "tenants": ["acme"]}}',
      },
      root,
      dataDir,
      workflowBundle: { codePath: testEnv.workflowBundlePath },
    });
  });
  afterAll(async () => {
    await runner?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    const db = admin();
    await db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => db.destroy());
  });

  it('walks tenant → model → domain → assignment → init → job → completion → cascade, and its tokens work', async () => {
    const blocks = quickStartBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(12);
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN|MODEL_SERVER)=.*$/gm, '');
    // Asynchronously: the API answering the script runs in this process.
    const out = await promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 90000,
      env: {
        ...process.env,
        API: runner.apiUrl,
        TOKEN: runner.adminToken,
        MODEL_SERVER: runner.modelServerUrl,
        MOS_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
      },
    }).then(
      (r) => r.stdout,
      (err) => {
        throw new Error(`quick start failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
      },
    );
    expect(out).toMatch(/"status": "success",\s+"output": \{\s+"score": 0.92/); // the cascade job echoed the completion's output
    // The service is available, and its resolved features carry the default of cabin.
    expect(out).toMatch(
      /"status": "available",\s+"provided_features": \{\s+"seats": 180\s+\},\s+"resolved_features": \{[^}]*"cabin": "economy"/,
    );
    // The user token reads the service; the machine token lists the tenant's two inference jobs.
    expect(out).toContain('\n"available"\n2\n');
    // Step 13: the model server's signed call answered the job's output.
    expect(out).toMatch(/"whsec_"\n\{\s+"status": "success",\s+"output": \{\s+"model": "stand-in",\s+"score": 0.64\s+\}\s+\}\s*$/);
  });

  it("runs the typed client's example (client/README.md) as written, on the quick start's tenant", async () => {
    // The README's command: the example compiled by `npm run build` (npm test builds before jest runs).
    const run = await promisify(execFile)(process.execPath, ['dist/client/example.js'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30000,
      env: { ...process.env, API: runner.apiUrl, TOKEN: runner.adminToken },
    });
    expect(run.stdout.trim()).toMatch(/^job [0-9a-f-]{36}: (pending|running)$/);
  });
});
