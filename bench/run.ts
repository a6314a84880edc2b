import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import pino from 'pino';
import { generateKeyPair, exportJWK, createLocalJWKSet, SignJWT } from 'jose';
import { loadConfig } from '../src/config';
import { createKnex, migrateLatest } from '../src/db/knex';
import { startDevServer } from '../src/temporal/dev-server';
import { connectTemporalClient } from '../src/temporal/connection';
import { createJobGateway } from '../src/temporal/job-gateway';
import { createJobWorker } from '../src/temporal/worker-factory';
import { createTokenVerifier } from '../src/auth/verifier';
import { createApp } from '../src/app';
import { builtinImplementations } from '../activities/in-process/registry';
import { UserSchemaCompiler } from '../src/domain/json-schemas';
import { FeatureRules, FeatureDefinition } from '../src/domain/features';
import { createApiClient } from '../client';

/**
 * `npm run bench`: the API and the job path on this machine, against a real Postgres (TEST_DATABASE_URL or the
 * local one) and a Temporal dev server it starts. Prints its figures; not part of the test suite.
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FEATURES: FeatureDefinition[] = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1, maximum: 900 }, mandatory: true },
  { name: 'cabin', json_schema: { enum: ['economy', 'business', 'first'], default: 'economy' }, mandatory: true },
  { name: 'legs', json_schema: { type: 'array', items: { type: 'string' }, maxItems: 8, default: [] }, mandatory: false },
  { name: 'load', json_schema: { type: 'number', minimum: 0, maximum: 1 }, mandatory: false },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `total` calls of `fn` with `concurrency` in flight; returns per-call latencies (ms) and the wall time. */
async function load(total: number, concurrency: number, fn: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      await fn(i);
      latencies.push(performance.now() - t);
    }
  }));
  const wall = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { wall, perSecond: (total / wall) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0);

async function run() {
  const dbName = `mos_bench_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const server = await startDevServer({ headless: true });
  const knex = createKnex(dbUrl.toString(), { max: 10 });
  const config = loadConfig({ TEMPORAL_ADDRESS: server.address, TEMPORAL_TASK_QUEUE: 'bench', MACHINE_CLIENTS: '{"bench":{"access":"platform"}}', AUTH_ISSUER: 'bench', LOG_LEVEL: 'silent' });
  const log = pino({ level: 'silent' });
  const temporal = await connectTemporalClient(server.address, 'default');
  try {
    await migrateLatest(knex);
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'bench' };
    const token = await new SignJWT({ client_id: 'bench', scope: 'platform/admin' }).setProtectedHeader({ alg: 'RS256', kid: 'bench' }).setIssuer('bench').setExpirationTime('1h').sign(privateKey);
    const gateway = createJobGateway({ client: temporal, taskQueue: 'bench', namespace: 'default', completionDeadlineSeconds: 600 });
    const verify = createTokenVerifier({ keys: createLocalJWKSet({ keys: [jwk] }), issuer: 'bench' });
    const { app } = createApp({ config, knex, temporal, gateway, verify, log, inProcessNames: Object.keys(builtinImplementations) });
    const http = app.listen(0, '127.0.0.1');
    await new Promise((r) => http.once('listening', r));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const departure = new Date(Date.now() + 86400000).toISOString();
    config.publicBaseUrl = base;
    const { worker, connection } = await createJobWorker({ config, knex, client: temporal, log, inProcess: builtinImplementations, sdkLogLevel: 'ERROR' });
    const workerRun = worker.run();
    // The typed client of client/: the bench calls the API as a consumer would, and exercises the client.
    const api = createApiClient({ baseUrl: base, token });
    const ok = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
      const { data, error, response } = await call;
      if (!response.ok) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(error)}`);
      return data as T;
    };
    const handlers = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } } as const;
    await ok(api.POST('/v2/models', { body: { id: 'bench-model', name: 'bench', description: '', metadata: {}, handlers, features: FEATURES } }));
    await ok(api.PUT('/v2/models/{model_id}/versions/{model_version}/new_status', { params: { path: { model_id: 'bench-model', model_version: '1' } }, body: { status: 'active' } }));
    const bench = { client_id: 'bench' };
    const domain = { ...bench, domain_id: 'd' };
    await ok(api.PUT('/v2/clients/{client_id}', { params: { path: bench }, body: {} }));
    await ok(api.POST('/v2/clients/{client_id}/domains', { params: { path: bench }, body: { domain_id: 'd', features: FEATURES } }));
    await ok(api.PUT('/v2/clients/{client_id}/domains/{domain_id}/new_status', { params: { path: domain }, body: { status: 'active' } }));
    await ok(api.POST('/v2/clients/{client_id}/domains/{domain_id}/model/assign', { params: { path: domain }, body: { model_id: 'bench-model' } }));
    const init = (service_id: string, static_features: Record<string, unknown>) =>
      ok(api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', { params: { path: domain }, body: { service_id, departure_datetime: departure, static_features } }));

    console.log(`Model Orchestration Service benchmark (node ${process.version}, ${new Date().toISOString()})\n`);

    // 1. Authenticated reads: token verification, two checks, one indexed query.
    await init('read-me', { seats: 100 });
    const reads = await load(3000, 16, async () => {
      await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}', { params: { path: { ...domain, service_id: 'read-me' } } }));
    });
    console.log(`GET service               3000 requests, 16 in flight: ${fmt(reads.perSecond)} req/s, p50 ${fmt(reads.p50)} ms, p99 ${fmt(reads.p99)} ms`);

    // 2. Init → in-process inference → service available: the whole durable job path.
    const inits = 200;
    const initStarted = performance.now();
    const initLoad = await load(inits, 8, async (i) => {
      await init(`svc-${i}`, { seats: 1 + (i % 800), cabin: 'business' });
    });
    for (;;) {
      const { n } = await knex('model_jobs').where({ trigger: 'service_init', status: 'success' }).count({ n: '*' }).first() as { n: number };
      if (n >= inits + 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const jobWall = performance.now() - initStarted;
    console.log(`POST service/init         ${inits} inits, 8 in flight: ${fmt(initLoad.perSecond)} req/s accepted, p50 ${fmt(initLoad.p50)} ms, p99 ${fmt(initLoad.p99)} ms`);
    console.log(`  init → job success      all ${inits} jobs done in ${fmt(jobWall / 1000)} s: ${fmt((inits / jobWall) * 1000)} jobs/s end to end`);

    // 3. The feature rules: compiled validators cached by content vs compiling per request.
    const values = { seats: 120, cabin: 'first', legs: ['FRA', 'JFK'], load: 0.8 };
    const cached = new FeatureRules(new UserSchemaCompiler());
    const n = 20000;
    let t = performance.now();
    for (let i = 0; i < n; i++) cached.valueProblems(FEATURES, values);
    const cachedUs = ((performance.now() - t) / n) * 1000;
    const m = 300;
    t = performance.now();
    for (let i = 0; i < m; i++) new FeatureRules(new UserSchemaCompiler()).valueProblems(FEATURES, values);
    const uncachedUs = ((performance.now() - t) / m) * 1000;
    console.log(`feature validation        cached ${fmt(cachedUs)} µs/check, compiled per check ${fmt(uncachedUs)} µs/check: cache is ${fmt(uncachedUs / cachedUs)}x faster (same run)`);

    worker.shutdown();
    await workerRun;
    await connection.close();
    await new Promise((r) => http.close(r));
  } finally {
    await temporal.connection.close();
    await knex.destroy();
    await server.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.destroy();
  }
}

run().catch((err) => {
  console.error('bench failed:', err);
  process.exit(1);
});
