import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer } from '../../src/dev/temporal/dev-server';
import { startTemporalServer, TemporalServer } from '../../src/dev/temporal/server';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { TemporalConnection } from '../../src/temporal/connection';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres';
import { createKnex, migrateLatest } from '../../src/db/knex';

/**
 * One migrated template database (each test file gets a copy, test/helpers/suite-database.ts) and one Temporal
 * server for the whole run. TEST_DATABASE_URL names an admin
 * connection (default: the local Postgres); when none answers, embedded-postgres is started instead.
 * TEST_TEMPORAL=server runs the production-shaped server (Postgres persistence, SQL visibility) instead of
 * the dev server; TEMPORAL_ADDRESS, when set, names a server to use instead of starting one.
 * Either way the job search attributes are registered the way `npm run migrate` does it.
 */
export default async function globalSetup() {
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

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-test-'));
  const server = process.env.TEMPORAL_ADDRESS ? undefined : await startTemporal(adminUrl, `mos_temporal_${process.pid}_${Date.now()}`, tmp);
  const address = process.env.TEMPORAL_ADDRESS ?? server!.address;
  const connection = await TemporalConnection.open({ address });
  await ensureSearchAttributes(connection, 'default');
  await connection.close();
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietLogger });
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);

  process.env.MOS_TEST_TEMPLATE_URL = url.toString();
  process.env.MOS_TEST_ADMIN_URL = adminUrl;
  process.env.MOS_TEST_TEMPORAL_ADDRESS = address;
  process.env.MOS_TEST_WORKFLOW_BUNDLE = bundlePath;
  (globalThis as any).__MOS__ = { server, adminUrl, dbName };
  console.log(
    `\n[setup] database ${dbName}, Temporal ${process.env.MOS_TEST_TEMPORAL_ADDRESS} (UI ${server?.uiUrl ?? 'n/a'}), ready in ${Date.now() - started} ms`,
  );
}

async function startTemporal(adminUrl: string, databasePrefix: string, workDir: string) {
  const mode = process.env.TEST_TEMPORAL ?? 'dev';
  if (mode === 'dev') return startDevServer();
  if (mode !== 'server') throw new Error(`TEST_TEMPORAL must be dev or server, not ${mode}`);
  // The suite's share of a 100-connection Postgres (README, "Postgres connections"): at most 4 × (6 + 2).
  const server: TemporalServer = await startTemporalServer({
    postgresUrl: adminUrl,
    databasePrefix,
    workDir,
    headless: true,
    postgresConnections: { main: 6, visibility: 2 },
  });
  (globalThis as any).__MOS_TEMPORAL_DBS__ = server.databases;
  return server;
}

const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

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
