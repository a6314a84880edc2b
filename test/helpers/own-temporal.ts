import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { Client } from '@temporalio/client';
import { TemporalConnection } from '../../src/temporal/connection';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { JOB_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { startDevServer, type DevServer } from '../../src/dev/temporal/dev-server';
import { startTemporalServer } from '../../src/dev/temporal/server';
import { createKnex, migrateLatest } from '../../src/db/knex';
import { testEnv } from './test-env';

/** A Temporal server of one test file, of the suite's kind (TEST_TEMPORAL), with durable state: to crash and restart. */
export interface CrashableTemporal {
  address: string;
  /** SIGKILL; resolves once the process is gone. */
  crash(): Promise<void>;
  /** The same server again, on the same address and state; resolves once it serves the namespace. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Crashing the suite's shared server would break the files running beside this one, so a file that crashes
 * Temporal starts its own: the dev server on a SQLite file, or temporal-server on databases of its own.
 */
export async function startOwnTemporal(options: { dynamicConfig?: Record<string, number | boolean> } = {}): Promise<CrashableTemporal> {
  const temporal = await startServer(options.dynamicConfig);
  await untilJobStartsAreTaken(temporal.address);
  return temporal;
}

/**
 * Registers the job search attributes, then waits until a start carrying them is taken: the frontend validates
 * starts against a cache of the namespace that lags its listing for a few seconds after a registration, and a start
 * refused then waits for the reconciler's next pass, which a test would wait out. The suite's own server gets that
 * time in global-setup.
 */
export async function untilJobStartsAreTaken(address: string, namespace = 'default'): Promise<void> {
  const connection = await TemporalConnection.open({ address });
  try {
    await ensureSearchAttributes(connection, namespace);
    const client = new Client({ connection, namespace });
    for (let attempt = 0; ; attempt++) {
      try {
        const probe = await client.workflow.start('searchAttributeProbe', {
          workflowId: `probe-${process.pid}-${attempt}`,
          taskQueue: 'no-worker',
          typedSearchAttributes: JOB_SEARCH_ATTRIBUTES.map((key) => ({ key, value: 'probe' })),
        });
        await probe.terminate();
        return;
      } catch (err) {
        if (attempt >= 120) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await connection.close();
  }
}

async function startServer(dynamicConfig?: Record<string, number | boolean>): Promise<CrashableTemporal> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'mos-own-temporal-'));
  if ((process.env.TEST_TEMPORAL ?? 'dev') === 'server') {
    const server = await startTemporalServer({
      postgresUrl: testEnv.databaseUrl,
      databasePrefix: `mos_own_temporal_${process.pid}_${Date.now()}`,
      workDir: work,
      headless: true,
      dynamicConfig,
      // Beside the suite's own server, within the suites' connection budget (README, "Postgres connections").
      postgresConnections: { main: 3, visibility: 1 },
    });
    return {
      address: server.address,
      crash: () => server.kill(),
      restart: () => server.restart(),
      async stop() {
        await server.stop();
        await dropDatabases([server.databases.main, server.databases.visibility]);
      },
    };
  }
  const dbFile = path.join(work, 'temporal.db');
  let dev: DevServer = await startDevServer({ dbFile, headless: true, dynamicConfig });
  const port = Number(dev.address.split(':')[1]);
  const crash = async () => {
    if (dev.process.exitCode !== null || dev.process.signalCode !== null) return;
    const gone = new Promise((r) => dev.process.once('exit', r));
    dev.process.kill('SIGKILL');
    await gone;
  };
  return {
    address: dev.address,
    crash,
    async restart() {
      await crash();
      dev = await startDevServer({ dbFile, headless: true, port, dynamicConfig });
      if (dev.address !== `127.0.0.1:${port}`) throw new Error(`the dev server came back on ${dev.address}, not port ${port}`);
    },
    stop: () => dev.stop(),
  };
}

/** A fresh, migrated database of one test file, for a file whose reconciler must see only its own job rows. */
export async function ownDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mos_own_${process.pid}_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(testEnv.databaseUrl);
  url.pathname = `/${name}`;
  const knex = createKnex(url.toString());
  await migrateLatest(knex);
  await knex.destroy();
  return { url: url.toString(), drop: () => dropDatabases([name]) };
}

/** Drops Temporal's databases of a server a test file started itself. */
export async function dropDatabases(names: string[]): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
  try {
    for (const name of names) await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.destroy();
  }
}
