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

/** The bash blocks of the worked example in docs/schedules.md, in order. */
function exampleBlocks(): string[] {
  const doc = readFileSync(path.join(root, 'docs/schedules.md'), 'utf8');
  const start = doc.indexOf('## Worked example');
  const end = doc.indexOf('\n## ', start + 1);
  return [...doc.slice(start, end === -1 ? undefined : end).matchAll(/```bash\n([\s\S]*?)```/g)].map(([, code]) => code);
}

/** docs/schedules.md's nightly re-scoring, run as written against a fresh dev runner (as the README quick start is). */
describe('the worked example of docs/schedules.md', () => {
  let runner: DevRunner;
  let dataDir: string;
  const database = `mos_schedules_example_${process.pid}`;
  const admin = () => knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'mos-schedules-example-'));
    const db = admin();
    await db.raw(`CREATE DATABASE ${database}`).finally(() => db.destroy());
    const url = new URL(testEnv.databaseUrl);
    url.pathname = `/${database}`;
    runner = await startDevRunner({
      env: {
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: url.toString(),
        TEMPORAL_ADDRESS: testEnv.temporalAddress,
        TEMPORAL_TASK_QUEUE: uid('schedules-example'),
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

  it('schedules each service of the domain nightly, fires one now, and pauses and resumes them all', async () => {
    const blocks = exampleBlocks();
    expect(blocks).toHaveLength(6);
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN)=.*$/gm, '');
    const out = await promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 90000,
      env: { ...process.env, API: runner.apiUrl, TOKEN: runner.adminToken },
    }).then(
      (r) => r.stdout,
      (err) => {
        throw new Error(`the worked example failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
      },
    );
    const lines = out.trimEnd().split('\n');
    expect(out).toMatch(/"would_start": true,\s+"job": "LH-400"/); // the dry run, which wrote nothing
    expect(lines.slice(-8)).toEqual([
      '2',
      '{"kind":"trigger","overlap":"allow_all"}',
      expect.stringMatching(/^\{"trigger":"schedule","service_id":"LH-40[02]","status":"success"\}$/),
      '{"paused":true,"note":"fleet migration"}',
      '{"paused":true,"note":"fleet migration"}',
      '{"paused":false,"note":"migration done"}',
      '{"paused":false,"note":"migration done"}',
      '{"paused":false,"runs":["started"]}',
    ]);
  });
});
