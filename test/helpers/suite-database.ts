import { createHash } from 'node:crypto';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';

/**
 * Each test file that talks to Postgres gets a database of its own, copied from the migrated template global setup
 * built (CREATE DATABASE … TEMPLATE copies files, no migrations re-run): one suite's background loops (a webhook
 * dispatcher, a reconciler, a releaser's sweep) can then never act on another suite's rows. Unit and workflow tests
 * use no database. A database whose connections are gone when its file ends is dropped then; global teardown
 * drops the rest.
 */
const NO_DATABASE = [`${path.sep}test${path.sep}unit${path.sep}`, `${path.sep}test${path.sep}workflows${path.sep}`];

let suiteDatabase: string | undefined;

function admin(): Knex {
  return knexFactory({ client: 'pg', connection: required('MOS_TEST_ADMIN_URL'), pool: { min: 0, max: 1 } });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest, whose global setup provides it`);
  return value;
}

beforeAll(async () => {
  const testPath = expect.getState().testPath ?? '';
  if (NO_DATABASE.some((dir) => testPath.includes(dir))) return;
  const template = new URL(required('MOS_TEST_TEMPLATE_URL'));
  const templateName = template.pathname.slice(1);
  // Named after the run's template and the file, so a leftover is easy to place (and global teardown finds it).
  const name = `${templateName}_${createHash('sha256').update(testPath).digest('hex').slice(0, 10)}`;
  const db = admin();
  try {
    await db.raw(`CREATE DATABASE ${name} TEMPLATE ${templateName}`);
  } finally {
    await db.destroy();
  }
  suiteDatabase = name;
  template.pathname = `/${name}`;
  process.env.MOS_TEST_DATABASE_URL = template.toString();
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
