import { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import pino from 'pino';
import { generateKeyPair, exportJWK, createLocalJWKSet, SignJWT } from 'jose';
import { loadConfig } from '../src/config';
import { createKnex, migrateLatest } from '../src/db/knex';
import { startDevServer } from '../src/dev/temporal/dev-server';
import { startTemporalServer } from '../src/dev/temporal/server';
import { connectTemporalClient } from '../src/temporal/connection';
import { createJobGateway } from '../src/temporal/job-gateway';
import { createJobWorker } from '../src/temporal/worker-factory';
import { createTokenVerifier } from '../src/auth/verifier';
import { createApp } from '../src/app';
import { builtinImplementations } from '../activities/in-process/registry';
import { UserSchemaCompiler } from '../src/domain/json-schemas';
import { FeatureRules, FeatureDefinition } from '../src/domain/features';
import { createApiClient } from '../client';
import { startBareWorker, startBare, startBareHttp } from './baselines';
import { httpCaller, load, median, percentile, LoadResult } from './http-load';
import { parkedJobs, ParkedResult } from './parked-jobs';
import { historyTimeline } from './timeline';
import { cpuSnapshot, cpuPer, CPU_PARTS, type CpuSnapshot } from './cpu';
import { noisyNeighbour } from './noisy-neighbour';

/**
 * `npm run bench [-- --temporal dev|server] [--rounds 3] [--parked 2000] [--worker-cache N] [--only service|bare]
 * [--phases jobs,reads,completions] [--inits 200] [--noisy 1500] [--noisy-rounds 1]` (bench/README.md): the service's paths
 * side by side with bare baselines on the same Temporal server and Postgres, rounds interleaved, medians and
 * ratios printed per target of issue #18. Not part of the test suite. `--timeline` prints the history of one completion
 * with 10 subscriptions per round, event by event with the time since the previous one. `--only service` skips the bare rounds
 * (for profiling the service alone); `--parked 0` skips the memory scenario, `--noisy 0` the noisy neighbour
 * (bench/noisy-neighbour.ts).
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const TEMPORAL = arg('temporal', 'dev');
const ROUNDS = Number(arg('rounds', '3'));
const PARKED = Number(arg('parked', '2000'));
const ONLY = arg('only', 'all');
const INITS = Number(arg('inits', '200'));
const INIT_CONCURRENCY = 16;
const READS = Number(arg('reads', '2000'));
const READ_CONNECTIONS = 32;
const COMPLETIONS = Number(arg('completions', '30'));
const TIMELINE = process.argv.includes('--timeline');
/** The parked-jobs worker's sticky cache size (WORKER_MAX_CACHED_WORKFLOWS); its default when absent. */
const WORKER_CACHE = arg('worker-cache', '');
/** Which of each round's phases run (for profiling one path): jobs, reads, completions. */
const PHASES = new Set(arg('phases', 'jobs,reads,completions').split(','));
/** The noisy-neighbour phase: the flooding tenant's inits; 0 skips it. */
const NOISY = Number(arg('noisy', '1500'));
const FEATURES: FeatureDefinition[] = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1, maximum: 900 }, mandatory: true },
  { name: 'cabin', json_schema: { enum: ['economy', 'business', 'first'], default: 'economy' }, mandatory: true },
  { name: 'legs', json_schema: { type: 'array', items: { type: 'string' }, maxItems: 8, default: [] }, mandatory: false },
  { name: 'load', json_schema: { type: 'number', minimum: 0, maximum: 1 }, mandatory: false },
];

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 0) : '-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run() {
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
  const knex = createKnex(dbUrl.toString(), { max: Number(arg('pool', '10')) });
  const config = loadConfig({
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_TASK_QUEUE: 'bench',
    MACHINE_CLIENTS: '{"bench":{"access":"platform"}}',
    AUTH_ISSUER: 'bench',
    LOG_LEVEL: 'silent',
    // The tenant's job bucket is taken on every init (its cost is measured) but never runs dry (--inits N per round).
    TENANT_JOBS_BURST: '1000000',
  });
  const log = pino({ level: 'silent' });
  const temporal = await connectTemporalClient(server.address, 'default');
  const stops: (() => Promise<unknown>)[] = [];
  try {
    await migrateLatest(knex);
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'bench' };
    const token = await new SignJWT({ client_id: 'bench', scope: 'platform/admin' })
      .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
      .setIssuer('bench')
      .setExpirationTime('2h')
      .sign(privateKey);
    const keys = createLocalJWKSet({ keys: [jwk] });
    const gateway = createJobGateway({ client: temporal, taskQueue: 'bench', namespace: 'default', completionDeadlineSeconds: 600 });
    const verify = createTokenVerifier({ keys, issuer: 'bench' });
    const { app } = createApp({ config, knex, temporal, gateway, verify, log, inProcessNames: Object.keys(builtinImplementations) });
    const http = app.listen(0, '127.0.0.1');
    await new Promise((r) => http.once('listening', r));
    stops.push(
      () =>
        new Promise((r) => {
          http.closeAllConnections();
          http.close(r);
        }),
    );
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const departure = new Date(Date.now() + 86400000).toISOString();
    config.publicBaseUrl = base;
    const { worker, connection } = await createJobWorker({
      config,
      knex,
      client: temporal,
      log,
      inProcess: builtinImplementations,
      sdkLogLevel: 'ERROR',
    });
    const workerRun = worker.run();
    stops.push(async () => {
      worker.shutdown();
      await workerRun;
      await connection.close();
    });
    const bare = ONLY === 'service' ? undefined : await startBareWorker(server.address, temporal);
    if (bare) stops.push(() => bare.stop());
    const bareHttp = ONLY === 'service' ? undefined : await startBareHttp(dbUrl.toString(), keys, 'bench');
    if (bareHttp) stops.push(() => bareHttp.stop());

    // Setup through the typed client of client/, as a consumer would.
    const api = createApiClient({ baseUrl: base, token });
    const ok = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
      const { data, error, response } = await call;
      if (!response.ok) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(error)}`);
      return data as T;
    };
    const model = async (id: string, inference: string, features?: FeatureDefinition[]) => {
      await ok(
        api.POST('/v2/models', {
          body: {
            id,
            name: id,
            description: '',
            metadata: {},
            handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: inference } },
            ...(features ? { features } : {}),
          },
        }),
      );
      await ok(
        api.PUT('/v2/models/{model_id}/versions/{model_version}/new_status', {
          params: { path: { model_id: id, model_version: '1' } },
          body: { status: 'active' },
        }),
      );
    };
    await model('bench-model', 'echo', FEATURES);
    await model('manual-0', 'manual');
    await model('manual-10', 'manual');
    await model('cascade-target', 'echo');
    for (let i = 0; i < 10; i++) {
      await ok(
        api.POST('/v2/models/{model_id}/event-subscriptions', {
          params: { path: { model_id: 'manual-10' } },
          body: {
            trigger_event: 'inference_complete',
            target_model_id: 'cascade-target',
            target_action: 'inference',
            input_source: 'trigger_output',
            label: `s${i}`,
          },
        }),
      );
    }
    const bench = { client_id: 'bench' };
    const domain = { ...bench, domain_id: 'd' };
    await ok(api.PUT('/v2/clients/{client_id}', { params: { path: bench }, body: {} }));
    await ok(api.POST('/v2/clients/{client_id}/domains', { params: { path: bench }, body: { domain_id: 'd', features: FEATURES } }));
    await ok(api.PUT('/v2/clients/{client_id}/domains/{domain_id}/new_status', { params: { path: domain }, body: { status: 'active' } }));
    await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/model/assign', { params: { path: domain }, body: { model_id: 'bench-model' } }),
    );
    const readMe = await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', {
        params: { path: domain },
        body: { service_id: 'read-me', departure_datetime: departure, static_features: { seats: 100 } },
      }),
    );

    const call = httpCaller(READ_CONNECTIONS);
    const must = async (method: string, url: string, body?: unknown, expect = 200) => {
      const res = await call(method, url, token, body);
      if (res.status !== expect) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
      return res.body;
    };
    const doneCount = async (ids: string[]) => {
      const { n } = (await knex('model_jobs')
        .whereIn('job_id', ids)
        .whereIn('status', ['success', 'failure'])
        .count({ n: '*' })
        .first()) as { n: number };
      return n;
    };

    console.log(
      `Model Orchestration Service benchmark (node ${process.version}, ${new Date().toISOString()}, Temporal ${TEMPORAL === 'server' ? 'production-shaped server (Postgres, 4 shards)' : 'dev server'}, ${ROUNDS} interleaved rounds${ONLY === 'all' ? '' : `, ${ONLY} only`})\n`,
    );

    const figures: Record<string, number[]> = {};
    const note = (name: string, value: number) => (figures[name] ??= []).push(value);
    const noteCpu = (side: string, per: CpuSnapshot) => {
      for (const k of CPU_PARTS) note(`${side}.cpu.${k}`, per[k]);
    };

    // Init → in-process echo → success: the service's round (inits accepted, then every job's success).
    async function serviceJobs(round: number) {
      // Statements the API and the worker send per job (less the bench's own polls, one statement each).
      let statements = 0;
      const count = () => statements++;
      knex.on('query', count);
      const ids: string[] = [];
      const cpu = cpuSnapshot();
      const started = performance.now();
      const inits = await load(INITS, INIT_CONCURRENCY, async (i) => {
        const body = await must(
          'POST',
          `${base}/v2/clients/bench/domains/d/service/init`,
          { service_id: `r${round}-${i}`, departure_datetime: departure, static_features: { seats: 1 + (i % 800), cabin: 'business' } },
          202,
        );
        ids.push(JSON.parse(body).job_id);
      });
      let polls = 1;
      for (; (await doneCount(ids)) < ids.length; polls++) await sleep(20);
      const wall = performance.now() - started;
      knex.off('query', count);
      noteCpu('service', cpuPer(cpu, cpuSnapshot(), INITS));
      note('service.statements', (statements - polls) / INITS);
      note('service.inits', inits.perSecond);
      note('service.initP50', inits.p50);
      note('service.e2e', (INITS / wall) * 1000);
    }
    // The bare client: starts of the same-shape workflow (16 in flight), then every run's end.
    async function bareJobs(round: number) {
      const results: Promise<unknown>[] = [];
      const cpu = cpuSnapshot();
      const started = performance.now();
      const starts = await load(INITS, INIT_CONCURRENCY, async (i) => {
        const handle = await startBare(temporal, `bare-${stamp}-${round}-${i}`, 'job');
        results.push(handle.result());
      });
      await Promise.all(results);
      const wall = performance.now() - started;
      noteCpu('bare', cpuPer(cpu, cpuSnapshot(), INITS));
      note('bare.starts', starts.perSecond);
      note('bare.startP50', starts.p50);
      note('bare.e2e', (INITS / wall) * 1000);
    }
    // Reads: the service's routes and the bare handler's, same token, same rows, 32 connections.
    const reads: [string, string][] = [
      ['service', `/v2/clients/bench/domains/d/service/read-me`],
      ['job', `/v2/jobs/${readMe.job_id}`],
      ['model', `/v2/models/bench-model`],
    ];
    async function readRound(side: 'service' | 'bare', what: string, route: string) {
      const url = `${side === 'service' ? base : bareHttp!.url}${route}`;
      const r: LoadResult = await load(READS, READ_CONNECTIONS, async () => {
        await must('GET', url);
      });
      note(`${side}.read.${what}`, r.perSecond);
    }
    // Completions, one at a time: a job parked by the `manual` handler, reported through the API.
    async function parkService(modelId: string, n: number): Promise<string[]> {
      const ids: string[] = [];
      await load(n, 8, async () => {
        ids.push(JSON.parse(await must('POST', `${base}/v2/models/${modelId}/versions/1/infer`, { input: { x: 1 } }, 202)).job_id);
      });
      for (;;) {
        const { n: pending } = (await knex('model_jobs').whereIn('job_id', ids).where({ status: 'pending' }).count({ n: '*' }).first()) as {
          n: number;
        };
        if (pending === 0) break;
        await sleep(50);
      }
      await sleep(300);
      return ids;
    }
    // One completion at a time. `settled`: the next waits until the cascade jobs the last one fired have finished, so
    // its figure is the completion's own latency; back to back, each also competes with the cascades still running.
    async function completeService(modelId: string, ids: string[], name: string, settled: boolean) {
      const ms: number[] = [];
      for (const [i, id] of ids.entries()) {
        const started = performance.now();
        const res = await call('POST', `${base}/v2/models/${modelId}/versions/1/jobs/${id}/complete`, token, {
          status: 'success',
          output: { i },
        });
        ms.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`completion: ${res.status} ${res.body}`);
        const fired = (JSON.parse(res.body) as { triggered_events: { job_id: string }[] }).triggered_events.map((e) => e.job_id);
        while (settled && fired.length > 0 && (await doneCount(fired)) < fired.length) await sleep(10);
      }
      note(
        name,
        percentile(
          [...ms].sort((a, b) => a - b),
          50,
        ),
      );
    }
    async function bareUpdates(round: number) {
      const handles = await Promise.all(
        Array.from({ length: COMPLETIONS }, (_, i) => startBare(temporal, `bare-park-${stamp}-${round}-${i}`, 'park')),
      );
      await sleep(500);
      const r = await load(handles.length, 1, async (i) => {
        await handles[i].executeUpdate('finish', { args: [{ i }] });
      });
      note('bare.update', r.p50);
    }

    const timelines: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      process.stdout.write(`round ${round}/${ROUNDS}:`);
      if (PHASES.has('jobs')) {
        process.stdout.write(' jobs');
        if (bare && round % 2 === 0) await bareJobs(round);
        if (ONLY !== 'bare') await serviceJobs(round);
        if (bare && round % 2 === 1) await bareJobs(round);
      }
      if (PHASES.has('reads')) process.stdout.write(' reads');
      for (const [what, route] of PHASES.has('reads') ? reads : []) {
        if (bareHttp && round % 2 === 0) await readRound('bare', what, route);
        if (ONLY !== 'bare') await readRound('service', what, route);
        if (bareHttp && round % 2 === 1) await readRound('bare', what, route);
      }
      if (!PHASES.has('completions') || ONLY === 'bare') {
        if (PHASES.has('completions') && bare) await bareUpdates(round);
        console.log(` (load ${os.loadavg()[0].toFixed(2)})`);
        continue;
      }
      process.stdout.write(' completions');
      const none = await parkService('manual-0', COMPLETIONS);
      const ten = await parkService('manual-10', COMPLETIONS);
      if (bare && round % 2 === 0) await bareUpdates(round);
      await completeService('manual-0', none, 'service.complete0', true);
      await completeService('manual-10', ten.slice(0, COMPLETIONS / 2), 'service.complete10', true);
      await completeService('manual-10', ten.slice(COMPLETIONS / 2), 'service.complete10b2b', false);
      if (TIMELINE) timelines.push(ten[ten.length - 1]);
      if (bare && round % 2 === 1) await bareUpdates(round);
      console.log(` (load ${os.loadavg()[0].toFixed(2)})`);
    }

    const m = (k: string) => (figures[k] ? median(figures[k]) : NaN);
    const all = (k: string, f = fmt) => (figures[k] ? figures[k].map(f).join(' / ') : '-');
    console.log("\nmedians of the rounds (each round's figures after the slash-separated lists)");
    const rows: [string, string, string, number, string, boolean][] = [];
    const row = (target: string, s: string, b: string, ratio: number, goal: string, met: boolean) =>
      rows.push([target, s, b, ratio, goal, met]);
    const inits = m('service.inits'),
      starts = m('bare.starts');
    row(
      'job starts: accepted inits/s vs bare starts/s',
      `${fmt(inits)} (p50 ${fmt(m('service.initP50'))} ms) [${all('service.inits')}]`,
      `${fmt(starts)} (p50 ${fmt(m('bare.startP50'))} ms) [${all('bare.starts')}]`,
      inits / starts,
      '≥ 0.8',
      inits / starts >= 0.8,
    );
    const e2e = m('service.e2e'),
      bareE2e = m('bare.e2e');
    row(
      'end to end: echo jobs/s vs bare workflow/s',
      `${fmt(e2e)} [${all('service.e2e')}]`,
      `${fmt(bareE2e)} [${all('bare.e2e')}]`,
      e2e / bareE2e,
      '≥ 0.7',
      e2e / bareE2e >= 0.7,
    );
    for (const [what] of reads) {
      const s = m(`service.read.${what}`),
        b = m(`bare.read.${what}`);
      row(
        `reads: GET ${what} req/s vs bare handler`,
        `${fmt(s)} [${all(`service.read.${what}`)}]`,
        `${fmt(b)} [${all(`bare.read.${what}`)}]`,
        s / b,
        '≥ 0.8',
        s / b >= 0.8,
      );
    }
    const c0 = m('service.complete0'),
      upd = m('bare.update'),
      c10 = m('service.complete10');
    row(
      'completion p50 ms, no subscriptions vs bare update',
      `${fmt(c0)} [${all('service.complete0')}]`,
      `${fmt(upd)} [${all('bare.update')}]`,
      c0 / upd,
      '≤ 2',
      c0 / upd <= 2,
    );
    row(
      'completion p50 ms, 10 subscriptions vs none',
      `${fmt(c10)} [${all('service.complete10')}]`,
      `${fmt(c0)}`,
      c10 / c0,
      '≤ 2',
      c10 / c0 <= 2,
    );
    for (const [target, s, b, ratio, goal, met] of rows) {
      console.log(
        `${target}\n  service ${s}\n  bare    ${b}\n  ratio   ${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'} (target ${goal}): ${Number.isFinite(ratio) ? (met ? 'met' : 'NOT met') : 'not measured'}`,
      );
    }

    // What one job costs each process (CPU ms, init to success): where the two sides part on a shared machine.
    const cpuOf = (side: string) => {
      const [node, temporal, postgres] = CPU_PARTS.map((k) => m(`${side}.cpu.${k}`));
      return `node ${fmt(node)} + Temporal ${fmt(temporal)} + Postgres ${fmt(postgres)} = ${fmt(node + temporal + postgres)}`;
    };
    console.log(`CPU ms per job, init or start to success (medians; no target)\n  service ${cpuOf('service')}\n  bare    ${cpuOf('bare')}`);
    console.log(
      `database statements per echo job (init, claim, dispatch, outcome; no target)\n  service ${all('service.statements', (n) => n.toFixed(1))}`,
    );
    const b2b = m('service.complete10b2b');
    console.log(
      `completion p50 ms, 10 subscriptions back to back (each while the last one's 10 cascade jobs still run; no target)\n  service ${fmt(b2b)} [${all('service.complete10b2b')}], ${fmt(b2b / c0)} × none`,
    );

    // --timeline: where one completion with 10 subscriptions spends its time, from its workflow's history.
    for (const jobId of timelines) console.log(await historyTimeline(temporal, `job-${jobId}`));

    // The feature rules: compiled validators cached by content vs compiling per request.
    const values = { seats: 120, cabin: 'first', legs: ['FRA', 'JFK'], load: 0.8 };
    const cached = new FeatureRules(new UserSchemaCompiler());
    let t = performance.now();
    for (let i = 0; i < 20000; i++) cached.valueProblems(FEATURES, values);
    const cachedUs = ((performance.now() - t) / 20000) * 1000;
    t = performance.now();
    for (let i = 0; i < 300; i++) new FeatureRules(new UserSchemaCompiler()).valueProblems(FEATURES, values);
    const uncachedUs = ((performance.now() - t) / 300) * 1000;
    console.log(
      `feature validation: cached ${fmt(cachedUs)} µs/check, compiled per check ${fmt(uncachedUs)} µs/check (${fmt(uncachedUs / cachedUs)}x)`,
    );

    for (const stop of stops.reverse()) await stop();
    stops.length = 0;

    if (NOISY > 0) {
      await noisyNeighbour({
        mode: TEMPORAL === 'server' ? 'server' : 'dev',
        adminUrl: ADMIN_URL,
        dbUrl: dbUrl.toString(),
        knex,
        stamp,
        flood: NOISY,
        idle: Number(arg('noisy-idle', '20')),
        limitedSeconds: Number(arg('noisy-limited-seconds', '10')),
        rounds: Number(arg('noisy-rounds', '1')),
        workerSlots: {
          workflowTasks: arg('worker-workflow-slots', '') || undefined,
          activities: arg('worker-activity-slots', '') || undefined,
        },
        privateKey,
        keys,
        log: (l) => console.log(l),
      });
    }

    if (PARKED > 0) {
      console.log(`\nmemory: ${PARKED} jobs parked waiting for their completion (API and worker as separate production processes)`);
      const r: ParkedResult = await parkedJobs({
        adminUrl: ADMIN_URL,
        temporalAddress: server.address,
        n: PARKED,
        workerEnv: WORKER_CACHE ? { WORKER_MAX_CACHED_WORKFLOWS: WORKER_CACHE } : undefined,
        log: (l) => console.log(l),
      });
      const first = r.samples[0],
        peak = r.samples.reduce((a, s) => ({ api: Math.max(a.api, s.api), worker: Math.max(a.worker, s.worker) }), { api: 0, worker: 0 });
      // Once the sticky cache is full (the first step holds more jobs than it), growth per 1,000 more parked jobs.
      const full = r.samples[r.samples.length - 2],
        filled = r.samples[1];
      const perK = (x: number, y: number) => ((y - x) / (full.parked - filled.parked)) * 1000;
      for (const side of ['api', 'worker'] as const) {
        console.log(
          `  ${side === 'api' ? 'API   ' : 'worker'} idle ${fmt(first[side])} MB, peak ${fmt(peak[side])} MB (idle + ${fmt(peak[side] - first[side])} MB), ` +
            `${fmt(perK(filled[side], full[side]))} MB per 1,000 more parked jobs from ${filled.parked} to ${full.parked}`,
        );
      }
      console.log(
        `  completed afterwards: ${r.completed} of ${r.jobs} answered 200, ${r.success} jobs success, in ${fmt(r.completeMs / 1000)} s`,
      );
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await temporal.connection.close();
    await knex.destroy();
    await server.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    if ('databases' in server)
      for (const db of [server.databases.main, server.databases.visibility])
        await admin.raw(`drop database if exists "${db}" with (force)`);
    await admin.destroy();
  }
}

run().catch((err) => {
  console.error('bench failed:', err);
  process.exit(1);
});
