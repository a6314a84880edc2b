import { readFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import { createKnex, migrateLatest } from '../src/db/knex';
import { freePort } from '../src/dev/temporal/dev-server';
import { loadDevKey, serveJwks, mintDevToken, DEV_ISSUER } from '../src/dev/dev-auth';
import { startProcess } from './processes';
import { httpCaller, load } from './http-load';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

export interface ParkedResult {
  jobs: number;
  samples: { parked: number; api: number; worker: number; stickyCache: number | null }[];
  completed: number;
  success: number;
  completeMs: number;
  workerEnv: Record<string, string>;
}

/**
 * Memory with many jobs waiting for their completion: the production API and worker entry points as separate
 * processes, `n` inference jobs with the built-in `manual` handler parked (dispatched, waiting for their report),
 * the RSS of each process sampled as they pile up; then every job is completed through the API, which also
 * shows that jobs evicted from the worker's sticky cache resume on their completion.
 */
export async function parkedJobs(o: {
  adminUrl: string;
  temporalAddress: string;
  n: number;
  workerEnv?: Record<string, string>;
  log: (line: string) => void;
}): Promise<ParkedResult> {
  const dbName = `mos_bench_parked_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: o.adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  const dbUrl = new URL(o.adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const knex = createKnex(dbUrl.toString(), { max: 2 });
  await migrateLatest(knex);
  const work = mkdtempSync(path.join(os.tmpdir(), 'mos-parked-'));
  const key = await loadDevKey(work);
  const jwks = await serveJwks(key.publicJwk);
  const token = await mintDevToken(key.privateKey, key.publicJwk.kid, { sub: 'bench', client_id: 'bench', scope: 'platform/admin' });
  const port = await freePort();
  const metricsPort = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    LOG_LEVEL: 'warn',
    DATABASE_URL: dbUrl.toString(),
    TEMPORAL_ADDRESS: o.temporalAddress,
    TEMPORAL_TASK_QUEUE: 'bench-parked',
    AUTH_JWKS_URL: jwks.url,
    AUTH_ISSUER: DEV_ISSUER,
    // The dev key signs the bench's token, as in an evaluation install.
    AUTH_DEV_ISSUER: 'on',
    MACHINE_CLIENTS: JSON.stringify({ bench: { access: 'platform' } }),
    PORT: String(port),
    PUBLIC_BASE_URL: api,
    JOB_COMPLETION_DEADLINE_SECONDS: '7200',
    WORKER_METRICS_PORT: String(metricsPort),
    ...o.workerEnv,
  };
  const children = [startProcess('main.js', env, 'api'), startProcess('worker.js', env, 'worker')];
  const [apiProc, workerProc] = children;
  const call = httpCaller(16);
  const stickyCache = async (): Promise<number | null> => {
    try {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const m = /^temporal_sticky_cache_size\{[^}]*\} (\d+)/m.exec(text);
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  };
  try {
    for (let i = 0; ; i++) {
      const ok = await fetch(`${api}/v2/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (i > 240) throw new Error('the API did not get ready');
      await sleep(250);
    }
    const must = async (method: string, route: string, body?: unknown) => {
      const res = await call(method, `${api}${route}`, token, body);
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${res.body}`);
      return res.body ? JSON.parse(res.body) : undefined;
    };
    await must('POST', '/v2/models', {
      id: 'parked',
      name: 'parked',
      description: '',
      metadata: {},
      handlers: { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } },
    });
    await must('PUT', '/v2/models/parked/versions/1/new_status', { status: 'active' });
    await sleep(2000);
    const samples: ParkedResult['samples'] = [];
    const sample = async (parked: number) => {
      const s = { parked, api: rssMb(apiProc.pid!), worker: rssMb(workerProc.pid!), stickyCache: await stickyCache() };
      samples.push(s);
      o.log(`    ${parked} parked: API ${s.api.toFixed(0)} MB, worker ${s.worker.toFixed(0)} MB, sticky cache ${s.stickyCache ?? '?'}`);
    };
    await sample(0);
    const ids: string[] = [];
    const step = Math.max(1, Math.floor(o.n / 5));
    for (let done = 0; done < o.n; done += step) {
      const batch = Math.min(step, o.n - done);
      await load(batch, 16, async () => {
        ids.push((await must('POST', '/v2/models/parked/versions/1/infer', { input: { n: ids.length } })).job_id);
      });
      // Parked means dispatched: the workflow is waiting for the report.
      for (;;) {
        const { n } = (await knex('model_jobs').where({ status: 'pending' }).count({ n: '*' }).first()) as { n: number };
        if (n === 0) break;
        await sleep(250);
      }
      await sleep(1000);
      await sample(ids.length);
    }
    const t = performance.now();
    let completed = 0;
    await load(ids.length, 16, async (i) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        const res = await call('POST', `${api}/v2/models/parked/versions/1/jobs/${ids[i]}/complete`, token, {
          status: 'success',
          output: { i },
        });
        if (res.status === 200) {
          completed++;
          return;
        }
        await sleep(500);
      }
    });
    const completeMs = performance.now() - t;
    const { n: success } = (await knex('model_jobs').where({ status: 'success' }).count({ n: '*' }).first()) as { n: number };
    await sample(0);
    return { jobs: ids.length, samples, completed, success, completeMs, workerEnv: o.workerEnv ?? {} };
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await sleep(1500);
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    jwks.server.close();
    await knex.destroy();
    await admin.raw(`drop database if exists ${dbName} with (force)`);
    await admin.destroy();
  }
}
