import { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import pino from 'pino';
import { SignJWT, type KeyLike, type JWTVerifyGetKey } from 'jose';
import { loadConfig } from '../src/config';
import { createKnex } from '../src/db/knex';
import { startDevServer } from '../src/dev/temporal/dev-server';
import { startTemporalServer } from '../src/dev/temporal/server';
import { WITHOUT_FAIRNESS } from '../src/dev/temporal/server-tuning';
import { jobGatewayFor } from '../src/temporal/job-gateway';
import { connectTemporalClient } from '../src/temporal/connection';
import { createTokenVerifier } from '../src/auth/verifier';
import { composeApi } from '../src/composition';
import { startBenchWorker } from './run/bench-worker';
import { ServiceMetrics } from '../src/observability/metrics';
import { poolStats } from '../src/db/pool-stats';
import { httpCaller, load, percentile } from './http-load';

/**
 * The noisy-neighbour phase of `npm run bench` (bench/README.md, "Noisy neighbour"): a quiet tenant's init → success
 * latency, one init at a time, on an idle service and while another tenant floods inits at 32 connections; then
 * (optionally) the flood again with a per-tenant limit set. Two sides on Temporal servers of the same shape (with or
 * without Temporal's fairness), each with its API and worker, interleaved: `before` without the service's own
 * fairness (REQUEST_FAIR_QUEUING=off, JOB_CAPACITY=0) and `after` with the defaults. The limits are the defaults on
 * both sides: what a tenant meets out of the box.
 */
export interface NoisyOptions {
  mode: 'dev' | 'server';
  /** Temporal's task-queue fairness on the servers of both sides (`matching.enableFairness`). */
  temporalFairness: boolean;
  adminUrl: string;
  /** The bench's database, where both sides keep their rows (each side's API and worker open pools of their own). */
  dbUrl: string;
  knex: Knex;
  stamp: string;
  /** Inits the flooding tenant sends. */
  flood: number;
  /** Quiet jobs measured on the idle service. */
  idle: number;
  /** Seconds of the limited flood. */
  limitedSeconds: number;
  /** Rounds; the side that goes first alternates. */
  rounds: number;
  /** The workers' slots on both sides (WORKER_WORKFLOW_TASK_SLOTS, WORKER_ACTIVITY_SLOTS); the SDK's defaults when unset. */
  workerSlots?: { workflowTasks?: string; activities?: string };
  privateKey: KeyLike;
  keys: JWTVerifyGetKey;
  log: (line: string) => void;
}

const FLOOD_CONNECTIONS = 32;
/** The per-tenant limit of the limited flood. */
const LIMIT = { jobs_per_second: 10, burst: 10 };
const FEATURES = [{ name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true }];

interface Side {
  name: 'before' | 'after';
  base: string;
  admin: string;
  tokens: Record<'flood' | 'quiet', string>;
  tenants: Record<'flood' | 'quiet', string>;
  stop(): Promise<void>;
}

interface SideFigures {
  idle: number[];
  underFlood: number[];
  floodAccepted: number;
  /** Flood inits answered 429 or 503, and those of them without Retry-After; answers of any other status. */
  floodRefused: number;
  refusedWithoutRetryAfter: number;
  floodErrors: number;
  /** Accepted jobs of both tenants that had not reached a final state a minute after the flood's last one did. */
  lost: number;
  floodE2e: number;
  limited: { accepted: number; refused: number; seconds: number; quiet: number[] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p = (xs: number[], q: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');

export async function noisyNeighbour(o: NoisyOptions): Promise<void> {
  const call = httpCaller(FLOOD_CONNECTIONS + 4);
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'bench' }).setIssuer('bench').setExpirationTime('2h').sign(o.privateKey);
  const must = async (method: string, url: string, token: string, body?: unknown, expect = 200) => {
    const res = await call(method, url, token, body);
    if (res.status !== expect) throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
    return res.body ? JSON.parse(res.body) : undefined;
  };

  type Server = Awaited<ReturnType<typeof startDevServer>> | Awaited<ReturnType<typeof startTemporalServer>>;
  async function stopServer(server: Server): Promise<void> {
    await server.stop();
    if (!('databases' in server)) return;
    const admin = (await import('knex')).default({ client: 'pg', connection: o.adminUrl, pool: { min: 0, max: 1 } });
    for (const db of [server.databases.main, server.databases.visibility]) await admin.raw(`drop database if exists "${db}" with (force)`);
    await admin.destroy();
  }

  /** One Temporal server serves both sides (each its own task queue), with Temporal's fairness on or off. */
  const dynamicConfig = o.temporalFairness ? undefined : WITHOUT_FAIRNESS;
  const shared =
    o.mode === 'server'
      ? await startTemporalServer({
          postgresUrl: o.adminUrl,
          databasePrefix: `mos_bench_noisy_${o.stamp}`,
          workDir: mkdtempSync(path.join(os.tmpdir(), 'mos-bench-noisy-')),
          headless: true,
          dynamicConfig,
          // The budget of the test suites (README, "Postgres connections"), beside the bench's own server.
          postgresConnections: { main: 6, visibility: 2 },
        })
      : await startDevServer({ headless: true, dynamicConfig });

  async function startSide(name: Side['name']): Promise<Side> {
    const server = shared;
    const [flood, quiet] = [`flood-${name}`, `quiet-${name}`];
    const config = loadConfig({
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: `noisy-${name}`,
      MACHINE_CLIENTS: JSON.stringify({
        bench: { access: 'platform' },
        [flood]: { access: 'tenant', tenants: [flood] },
        [quiet]: { access: 'tenant', tenants: [quiet] },
      }),
      AUTH_ISSUER: 'bench',
      LOG_LEVEL: 'silent',
      REQUEST_FAIR_QUEUING: name === 'after' ? 'on' : 'off',
      JOB_CAPACITY: name === 'after' ? undefined : '0',
      TEMPORAL_FAIRNESS_PROBE: 'off',
      // The tenants' job rate when the bench's environment sets it: the flood held below what the machine finishes.
      TENANT_JOBS_PER_SECOND: process.env.TENANT_JOBS_PER_SECOND,
      TENANT_JOBS_BURST: process.env.TENANT_JOBS_BURST,
      WORKER_WORKFLOW_TASK_SLOTS: o.workerSlots?.workflowTasks,
      WORKER_ACTIVITY_SLOTS: o.workerSlots?.activities,
    });
    const log = pino({ level: 'silent' });
    const temporal = await connectTemporalClient({ address: server.address }, 'default');
    // The API and the worker each with a pool of their own, as the separate processes of a deployment have, composed
    // as those processes compose them (src/composition/index.ts).
    const apiKnex = createKnex(o.dbUrl, { max: 5, name: `mos-bench-${name}-api` });
    const workerKnex = createKnex(o.dbUrl, { max: 5, name: `mos-bench-${name}-worker` });
    const resourcesOf = (knex: Knex) => ({ config, knex, temporal, log, metrics: new ServiceMetrics({ pool: poolStats(knex) }) });
    const api = composeApi({ ...resourcesOf(apiKnex), verify: createTokenVerifier({ keys: o.keys, issuer: 'bench' }) });
    const http = await api.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    config.publicBaseUrl = base;
    const stopWorker = await startBenchWorker(resourcesOf(workerKnex), jobGatewayFor(temporal, config));
    const admin = await sign({ client_id: 'bench', scope: 'platform/admin' });
    const model = `noisy-${name}`;
    await must(
      'POST',
      `${base}/v2/models`,
      admin,
      {
        id: model,
        name: model,
        description: '',
        metadata: {},
        handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
        features: FEATURES,
      },
      201,
    );
    await must('PUT', `${base}/v2/models/${model}/versions/1/new_status`, admin, { status: 'active' });
    for (const tenant of [flood, quiet]) {
      await must('PUT', `${base}/v2/clients/${tenant}`, admin, {}, 201);
      await must('POST', `${base}/v2/clients/${tenant}/domains`, admin, { domain_id: 'd', features: FEATURES }, 201);
      await must('PUT', `${base}/v2/clients/${tenant}/domains/d/new_status`, admin, { status: 'active' });
      await must('POST', `${base}/v2/clients/${tenant}/domains/d/model/assign`, admin, { model_id: model });
    }
    const tokenOf = (tenant: string) => sign({ client_id: tenant, scope: 'platform/service_init platform/read_models' });
    return {
      name,
      base,
      admin,
      tokens: { flood: await tokenOf(flood), quiet: await tokenOf(quiet) },
      tenants: { flood, quiet },
      async stop() {
        http.closeAllConnections();
        await api.close();
        await stopWorker();
        await temporal.connection.close();
        await apiKnex.destroy();
        await workerKnex.destroy();
      },
    };
  }

  let serial = 0;
  const init = (side: Side, who: 'flood' | 'quiet') =>
    call('POST', `${side.base}/v2/clients/${side.tenants[who]}/domains/d/service/init`, side.tokens[who], {
      service_id: `${who}-${serial++}`,
      departure_datetime: '2031-01-01T00:00:00Z',
      static_features: { seats: 1 + (serial % 500) },
    });

  /** Where a quiet job's time went, ms: the init's answer, then (from the job row) accepted → claimed → final. */
  const parts: Record<Side['name'], { answer: number[]; toClaim: number[]; toFinal: number[] }> = {
    before: { answer: [], toClaim: [], toFinal: [] },
    after: { answer: [], toClaim: [], toFinal: [] },
  };
  let recordParts = false;

  /** One quiet job, init → success (woken by the service's final-status notification, no polling): ms. */
  async function quietJob(side: Side): Promise<number> {
    const started = performance.now();
    const res = await init(side, 'quiet');
    if (res.status !== 202) throw new Error(`quiet init: ${res.status} ${res.body}`);
    const answered = performance.now() - started;
    const { job_id } = JSON.parse(res.body) as { job_id: string };
    for (;;) {
      const job = await must('GET', `${side.base}/v2/jobs/${job_id}?wait=60`, side.tokens.quiet);
      if (job.status === 'success') {
        const took = performance.now() - started;
        if (recordParts) {
          const [created, claimed, final] = [job.created_at, job.started_at, job.completed_at].map((t: string) => Date.parse(t));
          parts[side.name].answer.push(answered);
          parts[side.name].toClaim.push(claimed - created);
          parts[side.name].toFinal.push(final - claimed);
        }
        return took;
      }
      if (job.status !== 'pending' && job.status !== 'running') throw new Error(`quiet job ${job_id} ended ${job.status}`);
    }
  }

  /** Quiet jobs one after another until `done()` says stop: their latencies. */
  async function quietWhile(side: Side, done: () => boolean): Promise<number[]> {
    const out: number[] = [];
    while (!done()) out.push(await quietJob(side));
    return out;
  }

  const finished = async (tenant: string) =>
    Number(
      (
        (await o
          .knex('model_jobs')
          .where({ client_id: tenant })
          .whereIn('status', ['success', 'failure', 'timed_out', 'cancelled'])
          .count({ n: '*' })
          .first()) as {
          n: string;
        }
      ).n,
    );

  async function measure(side: Side): Promise<SideFigures> {
    o.log(`  ${side.name}: idle`);
    const idle: number[] = [];
    for (let i = 0; i < o.idle; i++) idle.push(await quietJob(side));

    o.log(`  ${side.name}: flood of ${o.flood} inits`);
    const before = await finished(side.tenants.flood);
    let drained = false;
    const started = performance.now();
    recordParts = true;
    const quiet = quietWhile(side, () => drained);
    let [acceptedN, shed, withoutRetryAfter, errors] = [0, 0, 0, 0];
    const accepted = await load(o.flood, FLOOD_CONNECTIONS, async () => {
      const res = await init(side, 'flood');
      if (res.status === 202) acceptedN++;
      else if (res.status === 429 || res.status === 503) {
        shed++;
        if (!res.retryAfter) withoutRetryAfter++;
      } else errors++;
    });
    // Every accepted job reaches a final state; a minute without progress past the flood's end counts the rest lost.
    let [done, progressAt] = [0, performance.now()];
    while (done < acceptedN && performance.now() - progressAt < 60_000) {
      await sleep(100);
      const now = (await finished(side.tenants.flood)) - before;
      if (now > done) [done, progressAt] = [now, performance.now()];
    }
    const e2e = (done / (performance.now() - started)) * 1000;
    drained = true;
    const underFlood = await quiet;
    recordParts = false;
    const lost = acceptedN - done;
    const floodCounts = { floodRefused: shed, refusedWithoutRetryAfter: withoutRetryAfter, floodErrors: errors, lost };
    if (o.limitedSeconds <= 0) {
      return {
        idle,
        underFlood,
        floodAccepted: (acceptedN / accepted.wall) * 1000,
        floodE2e: e2e,
        ...floodCounts,
        limited: { accepted: 0, refused: 0, seconds: 0, quiet: [] },
      };
    }

    o.log(`  ${side.name}: limited flood, ${o.limitedSeconds} s`);
    await must('PUT', `${side.base}/v2/clients/${side.tenants.flood}`, side.admin, { limits: LIMIT });
    let stop = false;
    let ok = 0;
    let refused = 0;
    const limitedStart = performance.now();
    const limitedQuiet = quietWhile(side, () => stop);
    const flooders = Array.from({ length: FLOOD_CONNECTIONS }, async () => {
      while (!stop) {
        const res = await init(side, 'flood');
        if (res.status === 202) ok++;
        else if (res.status === 429) refused++;
        else throw new Error(`limited flood: ${res.status} ${res.body}`);
      }
    });
    await sleep(o.limitedSeconds * 1000);
    stop = true;
    await Promise.all(flooders);
    const seconds = (performance.now() - limitedStart) / 1000;
    const limitedQuietMs = await limitedQuiet;
    await must('PUT', `${side.base}/v2/clients/${side.tenants.flood}`, side.admin, { limits: null });
    return {
      idle,
      underFlood,
      floodAccepted: (acceptedN / accepted.wall) * 1000,
      floodE2e: e2e,
      ...floodCounts,
      limited: { accepted: ok, refused, seconds, quiet: limitedQuietMs },
    };
  }

  o.log(
    `\nnoisy neighbour (${o.flood} inits at ${FLOOD_CONNECTIONS} connections, ${o.rounds} round(s); Temporal ${o.mode}, its fairness ` +
      `${o.temporalFairness ? 'on' : 'off'}; before: REQUEST_FAIR_QUEUING=off JOB_CAPACITY=0, after: the defaults)`,
  );
  const sides: Side[] = [];
  try {
    sides.push(await startSide('before'), await startSide('after'));
  } catch (err) {
    for (const side of sides) await side.stop().catch(() => undefined);
    await stopServer(shared);
    throw err;
  }
  const rounds: Record<Side['name'], SideFigures[]> = { before: [], after: [] };
  const loads: number[] = [os.loadavg()[0]];
  try {
    for (let round = 1; round <= o.rounds; round++) {
      for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
        rounds[side.name].push(await measure(side));
        loads.push(os.loadavg()[0]);
      }
    }
  } finally {
    for (const side of sides) await side.stop().catch(() => undefined);
    await stopServer(shared).catch(() => undefined);
  }
  // Latencies of all rounds together; throughputs per round.
  const all = (xs: SideFigures[], f: (s: SideFigures) => number[]) => xs.flatMap(f);
  const each = (xs: SideFigures[], f: (s: SideFigures) => number) => xs.map((s) => f(s).toFixed(1)).join(' / ');
  const row = (label: string, f: (s: SideFigures[], name: Side['name']) => string) =>
    o.log(`  ${label.padEnd(52)} ${f(rounds.before, 'before').padEnd(30)} ${f(rounds.after, 'after')}`);
  const pp = (xs: number[]) => `${ms(p(xs, 50))} / ${ms(p(xs, 95))} (${xs.length} jobs)`;
  o.log(`\n  ${''.padEnd(52)} ${'before'.padEnd(30)} after`);
  row('quiet idle p50 / p95 ms', (x) => pp(all(x, (s) => s.idle)));
  row('quiet under the flood p50 / p95 ms', (x) => pp(all(x, (s) => s.underFlood)));
  const part = (name: Side['name'], k: 'answer' | 'toClaim' | 'toFinal') => ms(p(parts[name][k], 50));
  row('  its p50s: init answered, accepted → claimed → final', (_, name) =>
    [part(name, 'answer'), part(name, 'toClaim'), part(name, 'toFinal')].join(', '),
  );
  row('  p95 under the flood ÷ idle p95 (target ≤ 2)', (x) =>
    (
      p(
        all(x, (s) => s.underFlood),
        95,
      ) /
      p(
        all(x, (s) => s.idle),
        95,
      )
    ).toFixed(1),
  );
  row('flood inits accepted/s', (x) => each(x, (s) => s.floodAccepted));
  row('flood inits 429/503 (without Retry-After), other errors', (x) =>
    x.map((s) => `${s.floodRefused} (${s.refusedWithoutRetryAfter}), ${s.floodErrors}`).join(' / '),
  );
  row('accepted flood jobs not final a minute after the last', (x) => x.map((s) => String(s.lost)).join(' / '));
  row('flood end to end, jobs/s', (x) => each(x, (s) => s.floodE2e));
  row(`limited (${LIMIT.jobs_per_second}/s, burst ${LIMIT.burst}): accepted, 429`, (x) =>
    x.map((s) => `${s.limited.accepted}, ${s.limited.refused} in ${s.limited.seconds.toFixed(0)} s`).join(' / '),
  );
  row('  accepted/s past the burst', (x) => each(x, (s) => (s.limited.accepted - LIMIT.burst) / s.limited.seconds));
  row('  quiet p50 / p95 ms meanwhile', (x) => pp(all(x, (s) => s.limited.quiet)));
  const mean = (xs: SideFigures[]) => xs.reduce((a, s) => a + s.floodE2e, 0) / xs.length;
  o.log(
    `  flood throughput after ÷ before: ${(mean(rounds.after) / mean(rounds.before)).toFixed(2)} (target ≥ 0.8); ` +
      `load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' → ')}`,
  );
}
