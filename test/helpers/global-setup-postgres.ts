import path from 'node:path';
import knexFactory from 'knex';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres';
import { createKnex, migrateLatest } from '../../src/db/knex';

/**
 * The db tier's global setup (jest.config.js): one migrated template database, which each test file copies
 * (test/helpers/suite-database.ts), and no Temporal. TEST_DATABASE_URL names an admin connection (default: the local
 * Postgres); when none answers, embedded-postgres is started instead. The temporal and e2e tiers' global setup
 * (global-setup.ts) runs this first, then starts Temporal; in a run of several tiers the template is made once.
 */
export default async function globalSetupPostgres(): Promise<void> {
  if ((globalThis as any).__MOS__) return;
  const started = Date.now();
  const adminUrl =
    (await reachable(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')) ?? (await embeddedPostgres());
  const dbName = `mos_test_${process.pid}_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${dbName}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const knex = createKnex(url.toString());
  await migrateLatest(knex);
  await knex.destroy();
  // The template of every suite's own database (test/helpers/suite-database.ts): nobody connects to it, so a copy
  // (which needs the template idle) never waits.
  const templateAdmin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await templateAdmin.raw(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
  await templateAdmin.destroy();

  process.env.MOS_TEST_TEMPLATE_URL = url.toString();
  process.env.MOS_TEST_ADMIN_URL = adminUrl;
  (globalThis as any).__MOS__ = { adminUrl, dbName };
  console.log(`\n[setup] database ${dbName}, ready in ${Date.now() - started} ms`);
}

async function reachable(connection: string): Promise<string | undefined> {
  const probe = knexFactory({ client: 'pg', connection, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 3000 });
  try {
    await probe.raw('select 1');
    return connection;
  } catch {
    return undefined;
  } finally {
    await probe.destroy();
  }
}

/** When no Postgres answers: an ephemeral embedded one, stopped by global-teardown. */
async function embeddedPostgres(): Promise<string> {
  const pg = await startEmbeddedPostgres(path.resolve(__dirname, '../..'), ['--ephemeral']);
  (globalThis as any).__MOS_PG__ = pg;
  return pg.url;
}
