import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import pino from 'pino';
import { generateKeyPair, exportJWK, createLocalJWKSet, SignJWT } from 'jose';
import { loadConfig } from '../../src/config';
import { createKnex, migrateLatest } from '../../src/db/knex';
import { startDevServer } from '../../src/dev/temporal/dev-server';
import { startTemporalServer } from '../../src/dev/temporal/server';
import { connectTemporalClient } from '../../src/temporal/connection';
import { createTokenVerifier } from '../../src/auth/verifier';
import { composeApi } from '../../src/composition';
import { ServiceMetrics } from '../../src/observability/metrics';
import { poolStats } from '../../src/db/pool-stats';
import { startBareWorker, startBareHttp } from '../baselines';
import { ADMIN_URL, ONLY, POOL, TEMPORAL, WORKER_CORE } from './options';
import { forkWorkers } from './workers';
import { countAsNode } from '../cpu';
import { benchGateway, startBenchWorker } from './bench-worker';

/** The named variables the bench's environment sets, passed on to the service's config. */
function pick(env: NodeJS.ProcessEnv, ...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => (env[n] === undefined ? [] : [[n, env[n]]])));
}

/** What a started part of the stack needs to stop, run in reverse order of the starts. */
export type Stops = (() => Promise<unknown>)[];

/** The bench's database, its Temporal server (`--temporal`), a pool and a client on them, and the service's config. */
export async function startStack() {
  const stamp = `${process.pid}`;
  const dbName = `mos_bench_${stamp}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const server =
    TEMPORAL === 'server'
      ? await startTemporalServer({
          postgresUrl: ADMIN_URL,
          databasePrefix: `mos_bench_temporal_${stamp}`,
          workDir: mkdtempSync(path.join(os.tmpdir(), 'mos-bench-')),
          headless: true,
        })
      : await startDevServer({ headless: true });
  const knex = createKnex(dbUrl.toString(), { max: POOL });
  const configEnv: Record<string, string> = {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: 'bench',
    MACHINE_CLIENTS: '{"bench":{"access":"platform"}}',
    AUTH_ISSUER: 'bench',
    LOG_LEVEL: 'silent',
    // The tenant's job bucket is taken on every init (its cost is measured) but never runs dry (--inits N per round).
    TENANT_JOBS_BURST: '1000000',
    // Capacity rather than policy: TENANT_JOBS_PER_SECOND=0 and CALLER_REQUESTS_PER_SECOND=0 switch the limits off.
    ...pick(process.env, 'TENANT_JOBS_PER_SECOND', 'CALLER_REQUESTS_PER_SECOND', 'TENANT_MAX_RUNNING_JOBS'),
  };
  const config = loadConfig(configEnv);
  const log = pino({ level: 'silent' });
  const temporal = await connectTemporalClient({ address: server.address }, 'default');
  return { stamp, dbName, admin, dbUrl, server, knex, config, configEnv, log, temporal };
}
export type Stack = Awaited<ReturnType<typeof startStack>>;

/** Closes the client and the pool, stops the Temporal server and drops the databases (the bench's and the server's). */
export async function stopStack({ temporal, knex, server, admin, dbName }: Stack) {
  await temporal.connection.close();
  await knex.destroy();
  await server.stop();
  await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  if ('databases' in server)
    for (const db of [server.databases.main, server.databases.visibility]) await admin.raw(`drop database if exists "${db}" with (force)`);
  await admin.destroy();
}

/**
 * The service: its schema migrated, a key pair and the bench's platform token, the API on a free port in this
 * process, and a job worker on the `bench` task queue: in this process, or with `--worker-core` in a process of its
 * own beside the bare worker (bench/run/worker-child.ts).
 */
export async function startService(stack: Stack, stops: Stops) {
  const { knex, config, log, temporal } = stack;
  await migrateLatest(knex);
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench' };
  const token = await new SignJWT({ client_id: 'bench', scope: 'platform/admin' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer('bench')
    .setExpirationTime('2h')
    .sign(privateKey);
  const keys = createLocalJWKSet({ keys: [jwk] });
  // The service as its processes compose it (src/composition/index.ts), with the bench's key, task queue and deadline.
  const resources = { config, knex, temporal, log, metrics: new ServiceMetrics({ pool: poolStats(knex) }) };
  const gateway = benchGateway(temporal);
  const api = composeApi({ ...resources, gateway, verify: createTokenVerifier({ keys, issuer: 'bench' }) });
  const http = await api.listen(0, '127.0.0.1');
  stops.push(() => api.close());
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const departure = new Date(Date.now() + 86400000).toISOString();
  config.publicBaseUrl = base;
  const workers = WORKER_CORE ? await startWorkerProcess(stack, base, stops) : undefined;
  if (!workers) stops.push(await startBenchWorker(resources, gateway));
  return { privateKey, keys, token, base, departure, workers };
}

/** `--worker-core`: the service's and the bare worker in their own process; its CPU counts as the bench's node. */
async function startWorkerProcess({ dbUrl, server, configEnv }: Stack, publicBaseUrl: string, stops: Stops) {
  const workers = await forkWorkers({
    dbUrl: dbUrl.toString(),
    temporalAddress: server.address,
    pool: POOL,
    configEnv,
    publicBaseUrl,
    bare: ONLY !== 'service',
  });
  countAsNode(workers.pid);
  stops.push(() => workers.stop());
  return workers;
}
export type Service = Awaited<ReturnType<typeof startService>>;

/** The bare baselines (bench/baselines.ts): a bare worker and a bare HTTP handler; none with `--only service`. */
export async function startBaselines({ server, temporal, dbUrl }: Stack, { keys }: Service, stops: Stops) {
  // With --worker-core the bare worker runs in the bench's worker process.
  const bare = ONLY === 'service' || WORKER_CORE ? undefined : await startBareWorker(server.address, temporal);
  if (bare) stops.push(() => bare.stop());
  const bareHttp = ONLY === 'service' ? undefined : await startBareHttp(dbUrl.toString(), keys, 'bench');
  if (bareHttp) stops.push(() => bareHttp.stop());
  return bareHttp && { http: bareHttp };
}
export type Baselines = Awaited<ReturnType<typeof startBaselines>>;

/** Stops what was started, last first, before the phases that start their own processes. */
export async function stopAll(stops: Stops) {
  for (const stop of stops.reverse()) await stop();
  stops.length = 0;
}

/** Stops what is still running after a failure, last first, each stop's own failure ignored. */
export async function stopRest(stops: Stops) {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}
