import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { startDevRunner, DevRunner } from '../../src/dev/runner';
import { testEnv } from './test-env';
import { uid } from './harness';

export const root = path.resolve(__dirname, '../..');

/** The bash blocks of one section (`## <heading>` up to the next `## `) of a Markdown file, in order. */
export function bashBlocks(file: string, heading: string): string[] {
  const doc = readFileSync(path.join(root, file), 'utf8');
  const start = doc.indexOf(`## ${heading}`);
  const end = doc.indexOf('\n## ', start + 1);
  return [...doc.slice(start, end === -1 ? undefined : end).matchAll(/```bash\n([\s\S]*?)```/g)].map(([, code]) => code);
}

/**
 * A fresh dev runner (the npm start code path, with this run's Postgres and Temporal) on a database of its own, so
 * the names a document uses meet no other test's data. `stop` removes the database and the data folder.
 */
export async function startDocRunner(
  name: string,
  env: Record<string, string> = {},
): Promise<{ runner: DevRunner; dataDir: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `mos-${name}-`));
  const database = `mos_${name.replace(/-/g, '_')}_${process.pid}`;
  const admin = () => knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
  const db = admin();
  await db.raw(`CREATE DATABASE ${database}`).finally(() => db.destroy());
  const url = new URL(testEnv.databaseUrl);
  url.pathname = `/${database}`;
  const runner = await startDevRunner({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: url.toString(),
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_TASK_QUEUE: uid(name),
      ...env,
    },
    root,
    dataDir,
    workflowBundle: { codePath: testEnv.workflowBundlePath },
  });
  return {
    runner,
    dataDir,
    async stop() {
      await runner.stop();
      rmSync(dataDir, { recursive: true, force: true });
      const cleanup = admin();
      await cleanup.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => cleanup.destroy());
    },
  };
}

/**
 * Runs the bash blocks of a document's section as one script (`set -euo pipefail`) against a doc runner, with the
 * page's own `export API=`/`export TOKEN=` lines replaced by the runner's; answers what it printed and the page's
 * first `text` block, which says what it prints.
 */
export async function runWorkedExample(
  file: string,
  heading: string,
  runner: DevRunner,
): Promise<{ blocks: number; printed: string; expected: string }> {
  const blocks = bashBlocks(file, heading);
  const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN)=.*$/gm, '');
  const printed = await promisify(execFile)('bash', ['-c', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120000,
    env: { ...process.env, API: runner.apiUrl, TOKEN: runner.adminToken },
  }).then(
    (r) => r.stdout,
    (err) => {
      throw new Error(`the worked example failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
    },
  );
  const expected = /```text\n([\s\S]*?)```/.exec(readFileSync(path.join(root, file), 'utf8'))![1];
  return { blocks: blocks.length, printed: printed.trimEnd(), expected: expected.trimEnd() };
}
