import { createHash } from 'node:crypto';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';

/**
 * Each test file that talks to Postgres gets a database of its own, copied from the migrated template global setup
 * built (CREATE DATABASE … TEMPLATE copies files, no migrations re-run): one suite's background loops (a webhook
 * dispatcher, a reconciler, a releaser's sweep) can then never act on another suite's rows. Unit and workflow tests
 * (test/temporal/workflows/) use no database. A database whose connections are gone when its file ends is dropped then; global teardown
 * drops the rest.
 */
const NO_DATABASE = [`${path.sep}test${path.sep}unit${path.sep}`, `${path.sep}test${path.sep}temporal${path.sep}workflows${path.sep}`];

/** This file's database: named (and its URL set, for code that reads it while the file is collected) at once, created before its tests. */
const suiteDatabase = ((): string | undefined => {
  const testPath = expect.getState().testPath;
  if (!testPath) throw new Error('suite-database.ts runs as a jest setupFilesAfterEnv module, where the test path is known');
  if (NO_DATABASE.some((dir) => testPath.includes(dir))) return undefined;
  const url = new URL(required('MOS_TEST_TEMPLATE_URL'));
  // Named after the run's template and the file, so a leftover is easy to place (and global teardown finds it).
  const name = `${url.pathname.slice(1)}_${createHash('sha256').update(testPath).digest('hex').slice(0, 10)}`;
  url.pathname = `/${name}`;
  process.env.MOS_TEST_DATABASE_URL = url.toString();
  return name;
})();

function admin(): Knex {
  return knexFactory({ client: 'pg', connection: required('MOS_TEST_ADMIN_URL'), pool: { min: 0, max: 1 } });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest, whose global setup provides it`);
  return value;
}

beforeAll(async () => {
  if (!suiteDatabase) return;
  const templateName = new URL(required('MOS_TEST_TEMPLATE_URL')).pathname.slice(1);
  const db = admin();
  try {
    await db.raw(`CREATE DATABASE ${suiteDatabase} TEMPLATE ${templateName}`);
  } finally {
    await db.destroy();
  }
});

afterAll(async () => {
  if (!suiteDatabase) return;
  const db = admin();
  try {
    // Not forced: a process the file started may still be closing its connections; global teardown forces it then.
    await db.raw(`DROP DATABASE IF EXISTS ${suiteDatabase}`).catch(() => undefined);
  } finally {
    await db.destroy();
  }
});
