import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
