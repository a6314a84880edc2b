import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import knexFactory from 'knex';
import { generateKeyPair, exportJWK, SignJWT } from 'jose';
import { createKnex, migrateLatest } from '../src/db/knex';
import { startDevServer, freePort } from '../src/dev/temporal/dev-server';
import { serveJwks } from '../src/dev/dev-auth';
import { BENCH_SECRET_KEYS } from './processes';

/**
 * `npm run bench:dashboard`: runs the API and the worker as the production processes do, drives ~90 s of mixed
 * jobs through them (in-process handlers, a Lambda-like handler reporting completions, cascades, failures,
 * conflicting reports, time-outs), scrapes both /metrics every 2 s as Prometheus would, and plots the series of
 * the Grafana dashboard (docker/grafana/dashboards) into docs/images/dashboard.png with headless Chromium.
 * Grafana itself is not installable on the machines this was built on; the panels and their queries are the same.
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROOT = path.resolve(__dirname, __filename.endsWith('.ts') ? '..' : '../..');
const SCRAPE_MS = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Samples = Map<string, number>; // `name{a="x",b="y"}` → value
interface Scrape {
  t: number;
  api: Samples;
  worker: Samples;
}

function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    // Greedy up to the last brace: route labels hold braces of their own (`/v2/models/{model_id}`).
    const m = /^([a-zA-Z_:][\w:]*)(\{.*\})?\s+(\S+)$/.exec(line);
    if (m) out.set(m[1] + (m[2] ?? ''), Number(m[3]));
  }
  return out;
}

function labelsOf(key: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [, k, v] of key.matchAll(/(\w+)="([^"]*)"/g)) labels[k] = v;
  return labels;
}

function spawnEntry(entry: string, env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const js = path.join(ROOT, 'dist', entry.replace(/\.ts$/, '.js'));
  const child = spawn(process.execPath, [js], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', SECRET_KEYS: BENCH_SECRET_KEYS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}:\n${output}`)));
  });
}

async function run() {
  const dbName = `mos_dashboard_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const knex = createKnex(dbUrl.toString(), { max: 2 });
  await migrateLatest(knex);
  const temporal = await startDevServer({ headless: true });
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'dash', alg: 'RS256' };
  const jwks = await serveJwks(jwk);
  const token = await new SignJWT({ client_id: 'dash', scope: 'platform/admin' })
    .setProtectedHeader({ alg: 'RS256', kid: 'dash' })
    .setIssuer('dash')
    .setExpirationTime('1h')
    .sign(privateKey);
  const children: ChildProcess[] = [];

  // A Lambda-like handler: accepts the invoke, reports a while later. Some fail, a few report twice with the
  // other status (a 409), a few never report (timed_out at the deadline).
  let reportsInFlight = 0;
  const lambda = createServer((req, res) => {
    let body = '';
    req
      .on('data', (c) => (body += c))
      .on('end', () => {
        res.writeHead(202).end();
        const job = JSON.parse(body);
        const roll = Math.random();
        if (roll < 0.04) return;
        const status = roll < 0.14 ? 'failure' : 'success';
        reportsInFlight++;
        setTimeout(
          async () => {
            const report = (s: string) =>
              fetch(job.completion.url, {
                method: 'POST',
                headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
                body: JSON.stringify({ status: s, output: { score: roll } }),
              }).catch(() => undefined);
            await report(status);
            if (roll > 0.95) await report(status === 'success' ? 'failure' : 'success');
            reportsInFlight--;
          },
          200 + Math.random() * 1800,
        );
      });
  });
  await new Promise<void>((r) => lambda.listen(0, '127.0.0.1', r));
  const lambdaUrl = `http://127.0.0.1:${(lambda.address() as { port: number }).port}`;

  try {
    const [apiPort, workerPort, sdkPort] = [await freePort(), await freePort(), await freePort()];
    const common = {
      DATABASE_URL: dbUrl.toString(),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: 'dashboard',
      AUTH_JWKS_URL: jwks.url,
      AUTH_ISSUER: 'dash',
      MACHINE_CLIENTS: '{"dash":{"access":"platform"}}',
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      JOB_COMPLETION_DEADLINE_SECONDS: '8',
      AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
    };
    children.push(await spawnEntry('src/bin/main.ts', { ...common, PORT: String(apiPort) }, 'API listening'));
    children.push(
      await spawnEntry(
        'src/bin/worker.ts',
        { ...common, WORKER_METRICS_PORT: String(workerPort), WORKER_SDK_METRICS_PORT: String(sdkPort) },
        'worker running',
      ),
    );
    const api = `http://127.0.0.1:${apiPort}`;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(api + p, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const lambdaHandler = (name: string) => ({ type: 'lambda', arn: `arn:aws:lambda:eu-west-1:123456789012:function:${name}` });
    const model = async (id: string, handler: object) => {
      await call('POST', '/v2/models', {
        id,
        name: id,
        description: '',
        metadata: {},
        handlers: { training: handler, inference: handler },
        features: [],
      });
      await call('PUT', `/v2/models/${id}/versions/1/new_status`, { status: 'active' });
    };
    await model('scorer', lambdaHandler('scorer'));
    await model('ranker', lambdaHandler('ranker'));
    await model('enricher', { type: 'in_process', name: 'echo' });
    await model('retired', { type: 'in_process', name: 'echo' });
    await model('flaky', { type: 'in_process', name: 'fail' });
    const subscribe = (from: string, to: string) =>
      call('POST', `/v2/models/${from}/event-subscriptions`, {
        trigger_event: 'inference_complete',
        target_model_id: to,
        target_action: 'inference',
        input_source: 'trigger_output',
        label: to,
      });
    await subscribe('scorer', 'enricher');
    await subscribe('ranker', 'enricher');
    await subscribe('ranker', 'retired');
    await call('PUT', '/v2/models/retired/versions/1/new_status', { status: 'failed' }); // ranker's cascades: one entry fails (207)

    const scrapes: Scrape[] = [];
    const started = Date.now();
    let scraping = true;
    const scraper = (async () => {
      while (scraping) {
        const [a, w] = await Promise.all([
          fetch(`${api}/metrics`).then((r) => r.text()),
          fetch(`http://127.0.0.1:${workerPort}/metrics`).then((r) => r.text()),
        ]);
        scrapes.push({ t: (Date.now() - started) / 1000, api: parse(a), worker: parse(w) });
        await sleep(SCRAPE_MS);
      }
    })();

    // Load in phases: a ramp up, a peak, a dip and a second burst.
    // Sized for a small machine (2 cores shared by Postgres, Temporal, the API and the worker).
    const phases = [
      { seconds: 15, concurrency: 1 },
      { seconds: 20, concurrency: 3 },
      { seconds: 15, concurrency: 6 },
      { seconds: 15, concurrency: 2 },
      { seconds: 15, concurrency: 5 },
    ];
    const mix = ['scorer', 'scorer', 'ranker', 'enricher', 'enricher', 'enricher', 'flaky'];
    let jobs = 0;
    for (const phase of phases) {
      const until = Date.now() + phase.seconds * 1000;
      await Promise.all(
        Array.from({ length: phase.concurrency }, async () => {
          while (Date.now() < until) {
            const target = mix[Math.floor(Math.random() * mix.length)];
            const res = await call('POST', `/v2/models/${target}/versions/1/infer`, { input: { n: jobs } });
            if (res.status === 202) jobs++;
            await call('GET', `/v2/models/${target}/versions/1/jobs/${res.body.job_id}`);
            await sleep(150);
          }
        }),
      );
    }
    await sleep(12000); // the time-outs and the last reports
    scraping = false;
    await scraper;
    console.log(`${jobs} jobs started, ${scrapes.length} scrapes, reports still in flight: ${reportsInFlight}`);

    const out = path.join(ROOT, 'docs/images/dashboard.png');
    mkdirSync(path.dirname(out), { recursive: true });
    const html = path.join(os.tmpdir(), `mos-dashboard-${process.pid}.html`);
    writeFileSync(html, renderPage(scrapes, jobs));
    const shot = spawnSync(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--hide-scrollbars',
        `--window-size=1500,1290`,
        `--screenshot=${out}`,
        `file://${html}`,
      ],
      { stdio: 'inherit' },
    );
    if (shot.status !== 0) throw new Error('chromium could not take the screenshot');
    console.log(`wrote ${out}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    lambda.close();
    jwks.server.close();
    await knex.destroy();
    await temporal.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.destroy();
  }
}

// ---- the dashboard's queries, evaluated over the scrapes as Prometheus would ----

type Source = 'api' | 'worker';
type Series = { name: string; points: [number, number | null][] };
const WINDOW = 3; // scrapes per rate window (6 s)

/** sum by (labels) of rate(counter) over the window; one series per label combination. */
function rate(
  scrapes: Scrape[],
  source: Source[],
  metric: string,
  by: string[],
  legend: (l: Record<string, string>) => string,
  filter: (l: Record<string, string>) => boolean = () => true,
): Series[] {
  const series = new Map<string, [number, number | null][]>();
  for (let i = WINDOW; i < scrapes.length; i++) {
    const [a, b] = [scrapes[i - WINDOW], scrapes[i]];
    const sums = new Map<string, number>();
    for (const s of source) {
      for (const [key, value] of b[s]) {
        if (!key.startsWith(`${metric}{`) && key !== metric) continue;
        const labels = labelsOf(key);
        if (!filter(labels)) continue;
        const name = legend(Object.fromEntries(by.map((k) => [k, labels[k]])));
        sums.set(name, (sums.get(name) ?? 0) + (value - (a[s].get(key) ?? 0)) / (b.t - a.t));
      }
    }
    for (const [name, v] of sums) (series.get(name) ?? series.set(name, []).get(name)!).push([b.t, v]);
  }
  return [...series].map(([name, points]) => ({ name, points }));
}

/** A gauge summed by labels. */
function gauge(scrapes: Scrape[], source: Source[], metric: string, legend: (l: Record<string, string>, s: Source) => string): Series[] {
  const series = new Map<string, [number, number | null][]>();
  for (const scrape of scrapes) {
    const sums = new Map<string, number>();
    for (const s of source) {
      for (const [key, value] of scrape[s]) {
        if (!key.startsWith(`${metric}{`) && key !== metric) continue;
        const name = legend(labelsOf(key), s);
        sums.set(name, (sums.get(name) ?? 0) + value);
      }
    }
    for (const [name, v] of sums) (series.get(name) ?? series.set(name, []).get(name)!).push([scrape.t, v]);
  }
  return [...series].map(([name, points]) => ({ name, points }));
}

/** histogram_quantile(q, sum by (le, group) (rate(bucket[window]))). */
function quantile(
  scrapes: Scrape[],
  source: Source[],
  metric: string,
  q: number,
  group: (l: Record<string, string>) => string | undefined,
): Series[] {
  const series = new Map<string, [number, number | null][]>();
  for (let i = WINDOW; i < scrapes.length; i++) {
    const [a, b] = [scrapes[i - WINDOW], scrapes[i]];
    const buckets = new Map<string, Map<number, number>>();
    for (const s of source) {
      for (const [key, value] of b[s]) {
        if (!key.startsWith(`${metric}_bucket{`)) continue;
        const labels = labelsOf(key);
        const name = group(labels);
        if (name === undefined) continue;
        const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
        const byLe = buckets.get(name) ?? buckets.set(name, new Map()).get(name)!;
        byLe.set(le, (byLe.get(le) ?? 0) + value - (a[s].get(key) ?? 0));
      }
    }
    for (const [name, byLe] of buckets) {
      const sorted = [...byLe].sort((x, y) => x[0] - y[0]);
      const total = sorted[sorted.length - 1]?.[1] ?? 0;
      let value: number | null = null;
      if (total > 0) {
        const rank = q * total;
        for (let j = 0; j < sorted.length; j++) {
          if (sorted[j][1] >= rank) {
            const [le, count] = sorted[j];
            const [prevLe, prevCount] = j ? sorted[j - 1] : [0, 0];
            value = le === Infinity ? prevLe : prevLe + ((le - prevLe) * (rank - prevCount)) / Math.max(count - prevCount, 1e-9);
            break;
          }
        }
      }
      (series.get(name) ?? series.set(name, []).get(name)!).push([b.t, value]);
    }
  }
  return [...series].filter(([, p]) => p.some(([, v]) => v !== null)).map(([name, points]) => ({ name, points }));
}

interface Panel {
  title: string;
  unit: string;
  series: Series[];
}

function panels(s: Scrape[]): Panel[] {
  const both: Source[] = ['api', 'worker'];
  const notProbe = (l: Record<string, string>) => !/^\/metrics|^\/v2\/health/.test(l.route ?? '');
  return [
    {
      title: 'Jobs started by trigger',
      unit: '/s',
      series: rate(s, both, 'mos_jobs_started_total', ['job_type', 'trigger'], (l) => `${l.job_type} ${l.trigger}`),
    },
    {
      title: 'Jobs finished by status',
      unit: '/s',
      series: rate(s, both, 'mos_jobs_finished_total', ['job_type', 'status'], (l) => `${l.job_type} ${l.status}`),
    },
    {
      title: 'Job time to final state (p50, p95)',
      unit: 's',
      series: [
        ...quantile(s, both, 'mos_job_duration_seconds', 0.5, () => 'p50'),
        ...quantile(s, both, 'mos_job_duration_seconds', 0.95, () => 'p95'),
      ],
    },
    {
      title: 'Completion reports and cascade entries',
      unit: '/s',
      series: [
        ...rate(s, both, 'mos_job_completion_reports_total', ['outcome'], (l) => `completion ${l.outcome}`),
        ...rate(s, both, 'mos_cascade_entries_total', ['outcome'], (l) => `cascade ${l.outcome}`),
      ],
    },
    {
      title: 'Dispatch attempts and failures by handler',
      unit: '/s',
      series: [
        ...rate(s, both, 'mos_dispatch_attempts_total', ['handler'], (l) => `attempts ${l.handler}`),
        ...rate(s, both, 'mos_dispatch_failures_total', ['handler'], (l) => `failures ${l.handler}`),
      ],
    },
    {
      title: 'HTTP request latency p95 by route',
      unit: 's',
      series: quantile(s, ['api'], 'mos_http_request_duration_seconds', 0.95, (l) =>
        notProbe(l) ? `${l.method} ${l.route.replace('/v2/models/{model_id}/versions/{model_version}', '…')}` : undefined,
      ),
    },
    {
      title: 'HTTP requests by status, and in flight',
      unit: '',
      series: [
        ...rate(s, ['api'], 'mos_http_request_duration_seconds_count', ['status'], (l) => `${l.status} /s`),
        ...gauge(s, ['api'], 'mos_http_requests_in_flight', () => 'in flight'),
      ],
    },
    {
      title: 'Worker task slots (Temporal SDK)',
      unit: '',
      series: gauge(s, ['worker'], 'temporal_worker_task_slots_used', (l) => `used ${l.worker_type}`).filter(
        (x) => !/Nexus|LocalActivity/.test(x.name),
      ),
    },
    {
      title: 'Task schedule-to-start latency p95 (Temporal SDK)',
      unit: 'ms',
      series: [
        ...quantile(s, ['worker'], 'temporal_workflow_task_schedule_to_start_latency', 0.95, () => 'workflow tasks'),
        ...quantile(s, ['worker'], 'temporal_activity_schedule_to_start_latency', 0.95, () => 'activity tasks'),
      ],
    },
    { title: 'Postgres pool', unit: '', series: gauge(s, both, 'mos_db_pool_connections', (l, src) => `${src} ${l.state}`) },
    {
      title: 'Temporal client call latency p95',
      unit: 's',
      series: quantile(s, both, 'mos_temporal_client_duration_seconds', 0.95, (l) => l.operation),
    },
    { title: 'Event loop lag p99', unit: 's', series: gauge(s, both, 'nodejs_eventloop_lag_p99_seconds', (_l, src) => src) },
  ];
}

const COLORS = [
  '#73bf69',
  '#f2cc0c',
  '#8ab8ff',
  '#ff780a',
  '#f2495c',
  '#5794f2',
  '#b877d9',
  '#fade2a',
  '#c4162a',
  '#56a64b',
  '#ff9830',
  '#a352cc',
];

function fmt(v: number, unit: string): string {
  const n = Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
  return unit === '/s' ? `${n}/s` : unit ? `${n} ${unit}` : n;
}

function chart(panel: Panel, tMax: number): string {
  const [w, h, left, top, bottom] = [470, 190, 52, 8, 22];
  const values = panel.series.flatMap((s) => s.points.map(([, v]) => v).filter((v): v is number => v !== null));
  const max = Math.max(...values, 1e-9) * 1.1;
  const x = (t: number) => left + (t / tMax) * (w - left - 8);
  const y = (v: number) => top + (1 - v / max) * (h - top - bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (f) =>
        `<line x1="${left}" x2="${w - 8}" y1="${y(max * f)}" y2="${y(max * f)}" stroke="#2c3235"/><text x="${left - 4}" y="${y(max * f) + 4}" text-anchor="end">${fmt(max * f, panel.unit)}</text>`,
    )
    .join('');
  const ticks = Array.from({ length: Math.floor(tMax / 15) + 1 }, (_, i) => i * 15)
    .map((t) => `<text x="${x(t)}" y="${h - 6}" text-anchor="middle">${t}s</text>`)
    .join('');
  const lines = panel.series
    .map((s, i) => {
      const d = s.points
        .filter(([, v]) => v !== null)
        .map(([t, v], j) => `${j ? 'L' : 'M'}${x(t).toFixed(1)},${y(v!).toFixed(1)}`)
        .join('');
      return `<path d="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.8"/>`;
    })
    .join('');
  const legend = panel.series.map((s, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${s.name}</span>`).join('');
  return `<div class="panel"><h3>${panel.title}</h3><svg width="${w}" height="${h}">${grid}${ticks}${lines}</svg><div class="legend">${legend || '<span>no data</span>'}</div></div>`;
}

function renderPage(scrapes: Scrape[], jobs: number): string {
  const tMax = scrapes[scrapes.length - 1].t;
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body{background:#111217;color:#ccccdc;font:12px/1.3 Inter,Helvetica,Arial,sans-serif;margin:0;padding:12px}
h1{font-size:16px;margin:0 0 10px 4px;font-weight:500}h1 small{color:#8e8e8e;font-weight:400;margin-left:10px}
.grid{display:grid;grid-template-columns:repeat(3,486px);gap:8px}
.panel{background:#181b1f;border:1px solid #2c3235;border-radius:3px;padding:6px 8px;height:290px;overflow:hidden}
h3{font-size:13px;font-weight:500;margin:0 0 4px}svg text{fill:#8e8e8e;font-size:10px}
.legend{display:flex;flex-wrap:wrap;gap:2px 12px;margin-top:4px}.legend i{display:inline-block;width:12px;height:3px;margin-right:5px;vertical-align:middle}
</style></head><body><h1>Model Orchestration Service<small>${jobs} jobs over ${Math.round(tMax)} s, scraped every ${SCRAPE_MS / 1000} s from the API's /metrics and the worker's metrics port; rates over ${(WINDOW * SCRAPE_MS) / 1000} s — panels and queries of docker/grafana/dashboards/model-orchestration.json</small></h1>
<div class="grid">${panels(scrapes)
    .map((p) => chart(p, tMax))
    .join('')}</div></body></html>`;
}

run().catch((err) => {
  console.error('dashboard snapshot failed:', err);
  process.exit(1);
});
