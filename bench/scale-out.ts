import type { ChildProcess } from 'node:child_process';
import { createServer, IncomingMessage } from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { Client } from '@temporalio/client';
import { TemporalConnection } from '../src/temporal/connection';
import { createKnex, migrateLatest } from '../src/db/knex';
import { startTemporalServer } from '../src/dev/temporal/server';
import { startTemporalCluster } from '../src/dev/temporal/cluster';
import { startTcpBalancer } from './tcp-balancer';
import { freePort } from '../src/dev/temporal/dev-server';
import { loadDevKey, serveJwks, mintDevToken, DEV_ISSUER } from '../src/dev/dev-auth';
import { startProcess } from './processes';
import { JOB_STATUS } from '../workflows/search-attributes';
import { REDELIVER_AFTER_SECONDS } from '../src/domain/jobs';

/**
 * `npm run bench:scale-out [-- --jobs 500] [--kill worker|server|hosts|frontend|none] [--down 10] [--wait 3600]`: API and worker
 * processes on the Postgres-backed Temporal. A burst of inits goes through the APIs in turn, a Lambda stand-in
 * reports each completion to one of them, and each completed job starts a cascade.
 *
 * On the single temporal-server (2 APIs, 2 workers): mid-burst one worker (`--kill worker`, the default) or
 * temporal-server itself (`--kill server`) is SIGKILLed and restarted `--down` seconds later (default 5 for a
 * worker, 10 for the server).
 *
 * On the multi-node cluster (src/dev/temporal/cluster.ts; 3 APIs, 3 workers, 1,000 inits by default), every process
 * reaching the frontends through a loopback TCP load balancer: `--kill hosts` SIGKILLs one history host at 40 % of
 * the burst and one matching host at 60 %, `--kill frontend` one frontend at 50 %; a host lost stays lost. `--kill none`
 * kills nothing at the marks of `--kill hosts` (the control run: the same figures without a kill).
 * `--cluster-address 127.0.0.40` places the cluster's 7 nodes, `--balancer-address` the balancer, and `--ports 21000`
 * numbers every port the run listens on from there (free ones when omitted).
 *
 * Prints jobs, final states, lost, duplicated and stuck jobs, dispatches per job, duplicate cascades and workflow
 * runs, whether every workflow closed with the JobStatus of its record, and after each kill (or restart) how long
 * until the last job then in flight, and the last job of all, was final. Opt-in: not part of `npm test`.
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const textArg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const KILL = textArg('kill') ?? 'worker';
if (!['worker', 'server', 'hosts', 'frontend', 'none'].includes(KILL))
  throw new Error('--kill must be worker, server, hosts, frontend or none');
const ON_CLUSTER = KILL === 'hosts' || KILL === 'frontend' || KILL === 'none';
const JOBS = arg('jobs', ON_CLUSTER ? 1000 : 500);
const CONCURRENCY = arg('concurrency', 16);
const REPLICAS = arg('replicas', ON_CLUSTER ? 3 : 2);
const DOWN_SECONDS = arg('down', KILL === 'server' ? 10 : 5);
const FIRST_PORT = arg('ports', 0);
const SOURCE_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:scorer';
const TARGET_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:follow-up';

const FINAL_STATES = ['success', 'failure', 'timed_out'];
/** How long without a job becoming final before the rest are counted as stuck. */
const STALL_SECONDS = 120;
/** `--wait`: the longest wait for every job to be final after the burst (a bound for a run on a busy machine). */
const WAIT_SECONDS = arg('wait', 3600);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function processOf(script: string, env: Record<string, string>, name: string): ChildProcess {
  return startProcess(script, { ...process.env, LOG_LEVEL: 'warn', ...env }, name);
}

async function waitFor(what: string, fn: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** How the run's Temporal is reached, and what a kill does to it. */
interface BenchTemporal {
  address: string;
  databases: { main: string; visibility: string };
  description: string;
  stop(): Promise<void>;
}

/** One SIGKILL of the run: at which share of the burst's accepted inits, what it hits, and when the process came back. */
interface Kill {
  at: number;
  victim: string;
  act(): Promise<void>;
  /** Resolves when the killed process is back (a restart) or at once (a host lost stays lost). */
  back?: Promise<number>;
  killedAt?: number;
}

let portsTaken = 0;
/** The next port of `--ports`, or a free one. */
const nextPort = () => (FIRST_PORT ? Promise.resolve(FIRST_PORT + portsTaken++) : freePort());

async function main() {
  const started = Date.now();
  const stamp = `${process.pid}_${Date.now()}`;
  const dbName = `mos_scale_${stamp}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const knex = createKnex(dbUrl.toString(), { max: 2 });
  await migrateLatest(knex);

  const work = mkdtempSync(path.join(os.tmpdir(), 'mos-scale-'));
  const kills: Kill[] = [];
  const children: ChildProcess[] = [];
  const workers: ChildProcess[] = [];
  let temporal: BenchTemporal;
  if (ON_CLUSTER) {
    const clusterPort = FIRST_PORT || undefined;
    if (FIRST_PORT) portsTaken += 9;
    const cluster = await startTemporalCluster({
      postgresUrl: ADMIN_URL,
      databasePrefix: `mos_scale_temporal_${stamp}`,
      workDir: work,
      firstAddress: textArg('cluster-address'),
      basePort: clusterPort,
    });
    const balancer = await startTcpBalancer(textArg('balancer-address') ?? '127.0.0.1', await nextPort(), cluster.frontends);
    temporal = {
      address: balancer.address,
      databases: cluster.databases,
      description: `a Temporal cluster of ${cluster.nodes.length} processes (${cluster.nodes.map((n) => `${n.service} ${n.ip}`).join(', ')}) behind a TCP balancer at ${balancer.address}`,
      async stop() {
        await balancer.close();
        await cluster.stop();
      },
    };
    const hostKill = (at: number, service: 'history' | 'matching' | 'frontend'): Kill => {
      const node = cluster.nodes.find((n) => n.service === service)!;
      return { at, victim: `${service} host ${node.ip}`, act: () => cluster.kill(node) };
    };
    // `--kill none`: the control run, nothing killed at the marks of `--kill hosts`, so that what a kill costs is
    // the recovery measured with it less the same figure without it (the backlog's own drain).
    const mark = (at: number): Kill => ({ at, victim: 'nothing', act: async () => undefined });
    if (KILL === 'hosts') kills.push(hostKill(0.4, 'history'), hostKill(0.6, 'matching'));
    else if (KILL === 'none') kills.push(mark(0.4), mark(0.6));
    else kills.push(hostKill(0.5, 'frontend'));
  } else {
    const server = await startTemporalServer({
      postgresUrl: ADMIN_URL,
      databasePrefix: `mos_scale_temporal_${stamp}`,
      workDir: work,
      headless: true,
    });
    temporal = {
      address: server.address,
      databases: server.databases,
      description: 'Postgres-backed temporal-server, 4 history shards',
      stop: () => server.stop(),
    };
    if (KILL === 'server') {
      const kill: Kill = {
        at: 0.5,
        victim: 'temporal-server',
        act: async () => {
          await server.kill();
          kill.back = sleep(DOWN_SECONDS * 1000)
            .then(() => server.restart())
            .then(() => {
              console.log(`  temporal-server restarted, serving again after ${DOWN_SECONDS} s down`);
              return Date.now();
            });
        },
      };
      kills.push(kill);
    } else {
      const kill: Kill = {
        at: 0.5,
        victim: 'worker-1',
        act: async () => {
          workers[0].kill('SIGKILL');
          kill.back = sleep(DOWN_SECONDS * 1000).then(() => {
            workers[0] = worker(1);
            children.push(workers[0]);
            console.log('  worker-1 restarted');
            return Date.now();
          });
        },
      };
      kills.push(kill);
    }
  }
  const key = await loadDevKey(work);
  const jwks = await serveJwks(key.publicJwk, await nextPort());
  const token = await mintDevToken(key.privateKey, key.publicJwk.kid, { sub: 'bench', client_id: 'bench', scope: 'platform/admin' });

  const apiPorts: number[] = [];
  for (let i = 0; i < REPLICAS; i++) apiPorts.push(await nextPort());
  const apis = apiPorts.map((p) => `http://127.0.0.1:${p}`);
  const call = async (api: string, method: string, route: string, payload?: unknown) => {
    const res = await fetch(`${api}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  // The Lambda stand-in: counts invokes per job, then reports success to one of the APIs (retrying 409/503 answers).
  const invokes = new Map<string, number>();
  let reported = 0;
  const lambda = createServer(async (req, res) => {
    const payload = JSON.parse(await body(req));
    invokes.set(payload.job_id, (invokes.get(payload.job_id) ?? 0) + 1);
    res.writeHead(202, { 'Content-Type': 'application/json' }).end('');
    const api = apis[reported++ % apis.length];
    for (let attempt = 0; attempt < 120; attempt++) {
      const done = await call(api, 'POST', payload.completion.path, { status: 'success', output: { scored: payload.job_id } }).catch(
        () => ({ status: 0 }),
      );
      if (done.status === 200 || done.status === 207) return;
      await sleep(500);
    }
    console.error(`completion of ${payload.job_id} was never accepted`);
  });
  const lambdaPort = await nextPort();
  await new Promise<void>((r) => lambda.listen(lambdaPort, '127.0.0.1', r));
  const lambdaUrl = `http://127.0.0.1:${lambdaPort}`;

  const common = {
    DATABASE_URL: dbUrl.toString(),
    // Within a shared 100-connection Postgres beside the cluster's 7 processes.
    DATABASE_POOL_MAX: ON_CLUSTER ? '4' : '10',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'model-jobs',
    AUTH_JWKS_URL: jwks.url,
    AUTH_ISSUER: DEV_ISSUER,
    // The dev key signs the bench's token, as in an evaluation install.
    AUTH_DEV_ISSUER: 'on',
    MACHINE_CLIENTS: JSON.stringify({ bench: { access: 'platform' } }),
    PUBLIC_BASE_URL: apis[0],
    AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCH',
    AWS_SECRET_ACCESS_KEY: 'bench',
  };
  const worker = (n: number) => processOf('worker.js', common, `worker-${n}`);
  children.push(...apiPorts.map((p, i) => processOf('main.js', { ...common, PORT: String(p) }, `api-${i + 1}`)));
  for (let i = 1; i <= REPLICAS; i++) workers.push(worker(i));
  children.push(...workers);
  try {
    for (const api of apis) await waitFor(`API ${api}`, async () => (await fetch(`${api}/v2/health`)).status === 200, 90000);

    const domain = '/v2/clients/scale/domains/flights';
    const setup: [string, string, unknown][] = [
      ['PUT', '/v2/clients/scale', { name: 'scale-out' }],
      [
        'POST',
        '/v2/clients/scale/domains',
        { domain_id: 'flights', features: [{ name: 'seats', json_schema: { type: 'integer' }, mandatory: true }] },
      ],
      ['PUT', `${domain}/new_status`, { status: 'active' }],
      [
        'POST',
        '/v2/models',
        {
          id: 'scorer',
          name: 'scorer',
          description: '',
          metadata: {},
          handlers: { training: { type: 'lambda', arn: SOURCE_ARN }, inference: { type: 'lambda', arn: SOURCE_ARN } },
          features: [{ name: 'seats', json_schema: { type: 'integer' }, mandatory: true }],
        },
      ],
      ['PUT', '/v2/models/scorer/versions/1/new_status', { status: 'active' }],
      [
        'POST',
        '/v2/models',
        {
          id: 'follow-up',
          name: 'follow-up',
          description: '',
          metadata: {},
          handlers: { training: { type: 'lambda', arn: TARGET_ARN }, inference: { type: 'lambda', arn: TARGET_ARN } },
        },
      ],
      ['PUT', '/v2/models/follow-up/versions/1/new_status', { status: 'active' }],
      [
        'POST',
        '/v2/models/scorer/event-subscriptions',
        {
          trigger_event: 'inference_complete',
          target_model_id: 'follow-up',
          target_action: 'inference',
          input_source: 'stored',
          input: { note: 'cascade' },
          label: 'scale',
        },
      ],
      ['POST', `${domain}/model/assign`, { model_id: 'scorer' }],
    ];
    for (const [method, route, payload] of setup) {
      const res = await call(apis[0], method, route, payload);
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
    }

    console.log(
      `burst: ${JOBS} inits through ${REPLICAS} APIs (${REPLICAS} workers), ${CONCURRENCY} in flight, on ${temporal.description}; ` +
        kills
          .map((k) => (KILL === 'none' ? `a mark at ${k.at * 100} %, nothing killed` : `${k.victim} SIGKILLed at ${k.at * 100} %`))
          .join(', '),
    );
    const burstStart = Date.now();
    let next = 0;
    let accepted = 0;
    const acceptedIds = new Set<string>();
    const refused: Record<number, number> = {};
    // Outcomes Temporal did not confirm in time, which the reconciler reports to their workflows again (docs/temporal.md).
    const redelivered = new Map<string, number>(); // job id → when its outcome was recorded
    const sampler = setInterval(() => {
      void knex('unconfirmed_outcomes')
        .where('recorded_at', '<', knex.raw(`now() - make_interval(secs => ?)`, [REDELIVER_AFTER_SECONDS]))
        .select('job_id', 'recorded_at')
        .then((rows: { job_id: string; recorded_at: Date }[]) => rows.forEach((r) => redelivered.set(r.job_id, r.recorded_at.getTime())))
        .catch(() => {});
    }, 500);
    // What was not final at each kill: the jobs whose recovery that kill is measured by.
    const openAtKill = new Map<Kill, Set<string>>();
    const kill = async (k: Kill) => {
      k.killedAt = Date.now();
      const open = await knex('model_jobs').whereNotIn('status', FINAL_STATES).select('job_id');
      openAtKill.set(k, new Set(open.map((r: { job_id: string }) => `job-${r.job_id}`)));
      await k.act();
      k.back ??= Promise.resolve(k.killedAt);
      console.log(`  ${k.victim} killed after ${accepted} accepted inits (${k.killedAt - burstStart} ms into the burst)`);
    };
    const killing: Promise<void>[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) {
          const i = next++;
          const res = await call(apis[i % apis.length], 'POST', `${domain}/service/init`, {
            service_id: `svc-${i}`,
            departure_datetime: new Date(Date.now() + 864e5).toISOString(),
            static_features: { seats: i },
          }).catch(() => ({ status: 0, body: undefined }));
          if (res.status === 202) {
            accepted++;
            acceptedIds.add((res.body as { job_id: string }).job_id);
          } else refused[res.status] = (refused[res.status] ?? 0) + 1;
          for (const k of kills) if (!k.killedAt && accepted >= JOBS * k.at) killing.push(kill(k));
        }
      }),
    );
    await Promise.all(killing);
    const burstMs = Date.now() - burstStart;

    // Every job final and every init's cascade made, or no progress for STALL_SECONDS: what is left then is stuck.
    const progress = async () => {
      const [open] = await knex('model_jobs').whereNotIn('status', FINAL_STATES).count<{ n: string }[]>('* as n');
      const [final] = await knex('model_jobs').whereIn('status', FINAL_STATES).count<{ n: string }[]>('* as n');
      const [cascades] = await knex('model_jobs').where({ trigger: 'cascade' }).count<{ n: string }[]>('* as n');
      return { done: Number(open.n) === 0 && Number(cascades.n) >= accepted, final: Number(final.n) };
    };
    let lastFinal = -1;
    let lastChange = Date.now();
    for (;;) {
      const p = await progress().catch(() => ({ done: false, final: lastFinal }));
      if (p.done) break;
      if (p.final !== lastFinal) [lastFinal, lastChange] = [p.final, Date.now()];
      if (Date.now() - lastChange > STALL_SECONDS * 1000) {
        console.error(`  no job became final for ${STALL_SECONDS} s: the rest are counted as stuck`);
        break;
      }
      if (Date.now() - burstStart - burstMs > WAIT_SECONDS * 1000) {
        console.error(`  --wait ${WAIT_SECONDS} s passed with jobs still moving: those not final are counted as stuck`);
        break;
      }
      await sleep(500);
    }
    const totalMs = Date.now() - burstStart;
    const backAt = await Promise.all(kills.map((k) => k.back!));

    const connection = await TemporalConnection.open({ address: temporal.address });
    const client = new Client({ connection });
    // A workflow that lost its completion update waits until the reconciler reports the recorded outcome again.
    const openWorkflows = async () =>
      (await client.workflow.count('WorkflowType = "modelJobWorkflow" AND ExecutionStatus = "Running"')).count;
    await waitFor('every job workflow to close', async () => (await openWorkflows()) === 0, 120000).catch((err: Error) =>
      console.error(`  ${err.message}`),
    );
    clearInterval(sampler);

    const states = await knex('model_jobs')
      .select('trigger', 'status')
      .count<{ trigger: string; status: string; n: string }[]>('* as n')
      .groupBy('trigger', 'status');
    const jobs = await knex('model_jobs').select('job_id', 'trigger', 'source_job_id', 'status');
    const dispatchCounts = jobs.map((j) => invokes.get(j.job_id) ?? 0);
    const cascadesPerSource = new Map<string, number>();
    for (const j of jobs) if (j.source_job_id) cascadesPerSource.set(j.source_job_id, (cascadesPerSource.get(j.source_job_id) ?? 0) + 1);

    const rows = new Map(
      (await knex('model_jobs').select('job_id', 'status', 'created_at', 'started_at', 'completed_at')).map((j) => [
        `job-${j.job_id}`,
        {
          status: j.status as string,
          created: (j.created_at as Date).getTime(),
          claimed: (j.started_at as Date | null)?.getTime() ?? Infinity,
          finished: (j.completed_at as Date | null)?.getTime() ?? Infinity,
        },
      ]),
    );
    const runs = new Map<string, number>();
    const closedAt = new Map<string, number>();
    let open = 0;
    let statusDiffers = 0;
    for await (const wf of client.workflow.list({ query: `WorkflowType = "modelJobWorkflow"` })) {
      runs.set(wf.workflowId, (runs.get(wf.workflowId) ?? 0) + 1);
      if (wf.status.name === 'RUNNING') open++;
      closedAt.set(wf.workflowId, wf.closeTime?.getTime() ?? Infinity);
      if (wf.typedSearchAttributes.get(JOB_STATUS) !== rows.get(wf.workflowId)?.status) statusDiffers++;
    }
    await connection.close();
    // Recovery is measured from when the killed process came back (a restart) or from the kill (a host lost).
    const restartedAt = Math.max(...backAt);
    const reference = ON_CLUSTER ? 'last kill' : 'restart';
    const afterRestart = (ms: number) => ((ms - restartedAt) / 1000).toFixed(1);
    const last = (ids: string[], of: (id: string) => number) => Math.max(...ids.map(of));
    /** Jobs by when they were created: in flight at the kill, or created while the killed process was away. */
    const created = (from: number, to: number) =>
      [...rows.entries()].filter(([, r]) => r.created >= from && r.created < to).map(([id]) => id);
    // A row whose workflow start was cut off waits for the reconciler's pending-row pass (30 s after the row, every 15 s).
    const finalAfter = (ids: string[], seconds: number) => ids.filter((id) => rows.get(id)!.finished > restartedAt + seconds * 1000).length;
    const startedLate = (ids: string[]) => ids.filter((id) => rows.get(id)!.claimed - rows.get(id)!.created > 30000).length;
    const cohort = (name: string, ids: string[]) =>
      `  ${name}: ${ids.length}` +
      (ids.length
        ? `; the last final ${afterRestart(last(ids, (id) => rows.get(id)!.finished))} s, its workflow closed ${afterRestart(last(ids, (id) => closedAt.get(id) ?? Infinity))} s after the ${reference}; ` +
          `final more than 15 s after the ${reference}: ${finalAfter(ids, 15)}, more than 30 s: ${finalAfter(ids, 30)}; ` +
          `claimed by their workflow more than 30 s after the row was written: ${startedLate(ids)}`
        : '');
    // Each such outcome's wait: from its commit (or the restart, when Temporal was away then) to its workflow closing.
    const redeliveryWaits = [...redelivered].map(
      ([id, recordedAt]) => ((closedAt.get(`job-${id}`) ?? Infinity) - Math.max(recordedAt, restartedAt)) / 1000,
    );

    const finalJobs = jobs.filter((j) => FINAL_STATES.includes(j.status as string));
    const rowIds = new Set(jobs.map((j) => j.job_id as string));
    const missingRows = [...acceptedIds].filter((id) => !rowIds.has(id)).length;
    const sourcesWithCascade = new Set(cascadesPerSource.keys());
    const cascadesMissing = jobs.filter(
      (j) => j.trigger !== 'cascade' && j.status === 'success' && !sourcesWithCascade.has(j.job_id),
    ).length;
    const stuck = jobs.length - finalJobs.length;
    const dispatchedTwice = dispatchCounts.filter((n) => n > 1).length;
    const duplicateCascades = [...cascadesPerSource.values()].filter((n) => n > 1).length;
    const multipleRuns = [...runs.values()].filter((n) => n > 1).length;

    console.log(
      `\nscale-out results (${REPLICAS} APIs, ${REPLICAS} workers, ${temporal.description}; ` +
        (KILL === 'none'
          ? 'nothing killed: the control run)'
          : `${kills.map((k) => k.victim).join(' and ')} SIGKILLed${ON_CLUSTER ? ', not restarted' : `, ${DOWN_SECONDS} s down`})`),
    );
    console.log(
      `  inits accepted: ${accepted} of ${JOBS}${Object.keys(refused).length ? `, refused: ${JSON.stringify(refused)}` : ''} in ${burstMs} ms`,
    );
    console.log(
      `  jobs: ${jobs.length} (${jobs.filter((j) => j.trigger !== 'cascade').length} inits + ${jobs.filter((j) => j.trigger === 'cascade').length} cascades)`,
    );
    console.log(`  final states: ${states.map((s) => `${s.trigger}/${s.status}=${s.n}`).join(', ')}`);
    console.log(
      `  accepted ${accepted}, final ${finalJobs.length} of ${jobs.length}, lost ${missingRows + cascadesMissing} ` +
        `(accepted inits without a row: ${missingRows}, succeeded inits without their cascade: ${cascadesMissing}), ` +
        `duplicated ${dispatchedTwice + multipleRuns} (dispatched twice or more: ${dispatchedTwice}, workflow ids with more than one run: ${multipleRuns}), ` +
        `stuck ${stuck}, duplicate cascades ${duplicateCascades}`,
    );
    console.log(
      `  handler dispatches: ${dispatchCounts.reduce((a, b) => a + b, 0)} for ${jobs.length} jobs; jobs dispatched once: ${dispatchCounts.filter((n) => n === 1).length}, twice or more: ${dispatchedTwice}, never: ${dispatchCounts.filter((n) => n === 0).length}`,
    );
    console.log(
      `  workflow runs: ${[...runs.values()].reduce((a, b) => a + b, 0)} for ${runs.size} workflow ids; ids with more than one run: ${multipleRuns}`,
    );
    console.log(`  workflows still open: ${open}; closed with a JobStatus other than the record's: ${statusDiffers}`);
    console.log(
      `  outcomes Temporal did not confirm within ${REDELIVER_AFTER_SECONDS} s, reported again by the reconciler: ${redelivered.size}` +
        (redelivered.size
          ? `; from their commit (or the restart, if later) to their workflow closed: at most ${Math.max(...redeliveryWaits).toFixed(1)} s`
          : ''),
    );
    for (const [i, k] of kills.entries()) {
      const inFlight = [...openAtKill.get(k)!].filter((id) => rows.has(id));
      const lastOf = (ids: string[]) =>
        ids.length ? ((last(ids, (id) => rows.get(id)!.finished) - k.killedAt!) / 1000).toFixed(1) : 'n/a';
      const after = created(k.killedAt!, kills[i + 1]?.killedAt ?? Infinity);
      // Whether the cluster kept finishing jobs: the longest pause between two jobs final in the two minutes after the kill.
      const finals = [...rows.values()]
        .map((r) => r.finished)
        .filter((t) => t > k.killedAt! && t < k.killedAt! + 120000)
        .sort((a, b) => a - b);
      const pause = Math.max(0, ...[k.killedAt!, ...finals].slice(1).map((t, j) => t - [k.killedAt!, ...finals][j]));
      console.log(
        `  recovery after ${KILL === 'none' ? `the ${k.at * 100} % mark` : `the SIGKILL of ${k.victim}`} (${((k.killedAt! - burstStart) / 1000).toFixed(1)} s into the burst): ` +
          `${inFlight.length} jobs not final then, the last of them final ${lastOf(inFlight)} s after the kill; ` +
          `${after.length} jobs created after it${kills[i + 1] ? ' (until the next kill)' : ''}, the last final ${lastOf(after)} s after the kill; ` +
          `in the 2 minutes after it ${finals.length} jobs final, the longest pause between two ${(pause / 1000).toFixed(1)} s`,
      );
    }
    console.log(cohort('jobs in flight at the last kill', created(0, kills.at(-1)!.killedAt!)));
    if (!ON_CLUSTER)
      console.log(cohort(`jobs created while ${kills[0].victim} was away (to its restart)`, created(kills[0].killedAt!, restartedAt)));
    console.log(cohort('all jobs', [...rows.keys()]));
    console.log(
      `  after the ${reference}, the last workflow closed ${afterRestart(Math.max(...closedAt.values()))} s (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
    );
    console.log(
      `  time: burst ${(burstMs / 1000).toFixed(1)} s, until every job was final ${(totalMs / 1000).toFixed(1)} s, whole run ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await sleep(2000);
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    lambda.close();
    jwks.server.close();
    await knex.destroy();
    await temporal.stop();
    await admin.raw(`drop database if exists ${dbName} with (force)`);
    for (const db of [temporal.databases.main, temporal.databases.visibility])
      await admin.raw(`drop database if exists "${db}" with (force)`);
    await admin.destroy();
  }
}

main().catch((err) => {
  console.error('scale-out failed:', err);
  process.exit(1);
});
