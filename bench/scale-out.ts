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
import { freePort } from '../src/dev/temporal/dev-server';
import { loadDevKey, serveJwks, mintDevToken, DEV_ISSUER } from '../src/dev/dev-auth';
import { startProcess } from './processes';
import { JOB_STATUS } from '../workflows/search-attributes';
import { REDELIVER_AFTER_SECONDS } from '../src/domain/jobs';

/**
 * `npm run bench:scale-out [-- --jobs 500] [--kill worker|server] [--down 10]`: two API and two worker processes on
 * the Postgres-backed Temporal server. A burst of inits goes through both APIs, a Lambda stand-in reports each
 * completion to either API, and mid-burst one worker (`--kill worker`, the default) or temporal-server itself
 * (`--kill server`) is SIGKILLed and restarted `--down` seconds later (default 5 for a worker, 10 for the server).
 * Prints jobs, final states, dispatches per job, duplicate cascades and workflow runs, whether every workflow closed
 * with the JobStatus of its record, the time from the restart to the last job final and the last workflow closed,
 * and how many jobs finished more than 15 and 30 s after the restart. Opt-in: not part of `npm test`.
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const JOBS = arg('jobs', 500);
const CONCURRENCY = arg('concurrency', 16);
const KILL = process.argv.includes('--kill') ? process.argv[process.argv.indexOf('--kill') + 1] : 'worker';
if (KILL !== 'worker' && KILL !== 'server') throw new Error('--kill must be worker or server');
const DOWN_SECONDS = arg('down', KILL === 'server' ? 10 : 5);
const SOURCE_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:scorer';
const TARGET_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:follow-up';

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

async function main() {
  const started = Date.now();
  const stamp = `${process.pid}_${Date.now()}`;
  const dbName = `mos_scale_${stamp}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const knex = createKnex(dbUrl.toString());
  await migrateLatest(knex);

  const work = mkdtempSync(path.join(os.tmpdir(), 'mos-scale-'));
  const temporal = await startTemporalServer({
    postgresUrl: ADMIN_URL,
    databasePrefix: `mos_scale_temporal_${stamp}`,
    workDir: work,
    headless: true,
  });
  const key = await loadDevKey(work);
  const jwks = await serveJwks(key.publicJwk);
  const token = await mintDevToken(key.privateKey, key.publicJwk.kid, { sub: 'bench', client_id: 'bench', scope: 'platform/admin' });

  const apiPorts = [await freePort(), await freePort()];
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

  // The Lambda stand-in: counts invokes per job, then reports success to either API (retrying 409/503 answers).
  const invokes = new Map<string, number>();
  let reported = 0;
  const lambda = createServer(async (req, res) => {
    const payload = JSON.parse(await body(req));
    invokes.set(payload.job_id, (invokes.get(payload.job_id) ?? 0) + 1);
    res.writeHead(202, { 'Content-Type': 'application/json' }).end('');
    const api = apis[reported++ % 2];
    for (let attempt = 0; attempt < 120; attempt++) {
      const done = await call(api, 'POST', payload.completion.path, { status: 'success', output: { scored: payload.job_id } }).catch(
        () => ({ status: 0 }),
      );
      if (done.status === 200 || done.status === 207) return;
      await sleep(500);
    }
    console.error(`completion of ${payload.job_id} was never accepted`);
  });
  await new Promise<void>((r) => lambda.listen(0, '127.0.0.1', r));
  const lambdaUrl = `http://127.0.0.1:${(lambda.address() as { port: number }).port}`;

  const common = {
    DATABASE_URL: dbUrl.toString(),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'model-jobs',
    AUTH_JWKS_URL: jwks.url,
    AUTH_ISSUER: DEV_ISSUER,
    MACHINE_CLIENTS: JSON.stringify({ bench: { access: 'platform' } }),
    PUBLIC_BASE_URL: apis[0],
    AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCH',
    AWS_SECRET_ACCESS_KEY: 'bench',
  };
  const children: ChildProcess[] = [];
  const worker = (n: number) => processOf('worker.js', common, `worker-${n}`);
  children.push(...apiPorts.map((p, i) => processOf('main.js', { ...common, PORT: String(p) }, `api-${i + 1}`)));
  const workers = [worker(1), worker(2)];
  children.push(...workers);
  try {
    for (const api of apis) await waitFor(`API ${api}`, async () => (await fetch(`${api}/v2/health`)).status === 200, 60000);

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

    const victim = KILL === 'server' ? 'temporal-server' : 'worker-1';
    console.log(`burst: ${JOBS} inits through 2 APIs, ${CONCURRENCY} in flight; ${victim} is killed with SIGKILL at the half`);
    const burstStart = Date.now();
    let next = 0;
    let accepted = 0;
    const refused: Record<number, number> = {};
    let killed = false;
    let killedAt = 0;
    // When the killed process was started again; for the server, when it served again.
    let restarted: Promise<number> | undefined;
    // Outcomes Temporal did not confirm in time, which the reconciler reports to their workflows again (docs/temporal.md).
    const redelivered = new Map<string, number>(); // job id → when its outcome was recorded
    const sampler = setInterval(() => {
      void knex('unconfirmed_outcomes')
        .where('recorded_at', '<', knex.raw(`now() - make_interval(secs => ?)`, [REDELIVER_AFTER_SECONDS]))
        .select('job_id', 'recorded_at')
        .then((rows: { job_id: string; recorded_at: Date }[]) => rows.forEach((r) => redelivered.set(r.job_id, r.recorded_at.getTime())))
        .catch(() => {});
    }, 500);
    const kill = () => {
      killedAt = Date.now();
      if (KILL === 'server') {
        restarted = temporal.kill().then(async () => {
          await sleep(DOWN_SECONDS * 1000);
          await temporal.restart();
          console.log(`  temporal-server restarted, serving again after ${DOWN_SECONDS} s down`);
          return Date.now();
        });
        return;
      }
      workers[0].kill('SIGKILL');
      restarted = sleep(DOWN_SECONDS * 1000).then(() => {
        workers[0] = worker(1);
        children.push(workers[0]);
        console.log('  worker-1 restarted');
        return Date.now();
      });
    };
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) {
          const i = next++;
          const res = await call(apis[i % 2], 'POST', `${domain}/service/init`, {
            service_id: `svc-${i}`,
            departure_datetime: new Date(Date.now() + 864e5).toISOString(),
            static_features: { seats: i },
          });
          if (res.status === 202) accepted++;
          else refused[res.status] = (refused[res.status] ?? 0) + 1;
          if (!killed && accepted >= JOBS / 2) {
            killed = true;
            kill();
            console.log(`  ${victim} killed after ${accepted} accepted inits (${Date.now() - burstStart} ms into the burst)`);
          }
        }
      }),
    );
    const burstMs = Date.now() - burstStart;

    const finalStates = ['success', 'failure', 'timed_out'];
    await waitFor(
      'every job to reach a final state',
      async () => {
        const open = await knex('model_jobs').whereNotIn('status', finalStates).count<{ n: string }[]>('* as n');
        const cascades = await knex('model_jobs').where({ trigger: 'cascade' }).count<{ n: string }[]>('* as n');
        return Number(open[0].n) === 0 && Number(cascades[0].n) >= accepted;
      },
      600000,
    );
    const totalMs = Date.now() - burstStart;
    const restartedAt = await restarted!;

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
    const jobs = await knex('model_jobs').select('job_id', 'trigger', 'source_job_id');
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
          finished: (j.completed_at as Date).getTime(),
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
        ? `; the last final ${afterRestart(last(ids, (id) => rows.get(id)!.finished))} s, its workflow closed ${afterRestart(last(ids, (id) => closedAt.get(id)!))} s after the restart; ` +
          `final more than 15 s after the restart: ${finalAfter(ids, 15)}, more than 30 s: ${finalAfter(ids, 30)}; ` +
          `claimed by their workflow more than 30 s after the row was written: ${startedLate(ids)}`
        : '');
    // Each such outcome's wait: from its commit (or the restart, when Temporal was away then) to its workflow closing.
    const redeliveryWaits = [...redelivered].map(
      ([id, recordedAt]) => (closedAt.get(`job-${id}`)! - Math.max(recordedAt, restartedAt)) / 1000,
    );

    console.log(
      `\nscale-out results (2 APIs, 2 workers, Postgres-backed Temporal, 4 history shards; ${victim} SIGKILLed, ${DOWN_SECONDS} s down)`,
    );
    console.log(
      `  inits accepted: ${accepted} of ${JOBS}${Object.keys(refused).length ? `, refused: ${JSON.stringify(refused)}` : ''} in ${burstMs} ms`,
    );
    console.log(
      `  jobs: ${jobs.length} (${jobs.filter((j) => j.trigger !== 'cascade').length} inits + ${jobs.filter((j) => j.trigger === 'cascade').length} cascades)`,
    );
    console.log(`  final states: ${states.map((s) => `${s.trigger}/${s.status}=${s.n}`).join(', ')}`);
    console.log(
      `  handler dispatches: ${dispatchCounts.reduce((a, b) => a + b, 0)} for ${jobs.length} jobs; jobs dispatched once: ${dispatchCounts.filter((n) => n === 1).length}, twice or more: ${dispatchCounts.filter((n) => n > 1).length}, never: ${dispatchCounts.filter((n) => n === 0).length}`,
    );
    console.log(`  duplicate cascade jobs: ${[...cascadesPerSource.values()].filter((n) => n > 1).length}`);
    console.log(
      `  workflow runs: ${[...runs.values()].reduce((a, b) => a + b, 0)} for ${runs.size} workflow ids; ids with more than one run: ${[...runs.values()].filter((n) => n > 1).length}`,
    );
    console.log(`  workflows still open: ${open}; closed with a JobStatus other than the record's: ${statusDiffers}`);
    console.log(
      `  outcomes Temporal did not confirm within ${REDELIVER_AFTER_SECONDS} s, reported again by the reconciler: ${redelivered.size}` +
        (redelivered.size
          ? `; from their commit (or the restart, if later) to their workflow closed: at most ${Math.max(...redeliveryWaits).toFixed(1)} s`
          : ''),
    );
    console.log(cohort('jobs in flight at the kill', created(0, killedAt)));
    console.log(cohort(`jobs created while ${victim} was away (to its restart)`, created(killedAt, restartedAt)));
    console.log(cohort('all jobs', [...rows.keys()]));
    console.log(
      `  after ${victim}'s restart, the last workflow closed ${afterRestart(Math.max(...closedAt.values()))} s (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
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
