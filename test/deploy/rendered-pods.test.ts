import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import knexFactory from 'knex';
import { DEV_ISSUER } from '../../src/dev/dev-auth';
import { startModelServer, type ModelServer } from '../../src/dev/model-server';
import { bashBlocks } from '../helpers/doc-runner';
import { eventually } from '../helpers/fixtures';
import { uid } from '../helpers/harness';
import { killHard } from '../helpers/worker-process';
import { testEnv } from '../helpers/test-env';
import { chartDir, render, root, yamlDocuments } from './deploy-tools';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** A rendered container as a process here: its command, its environment resolved from the rendered Secret and ConfigMap. */
interface PodProcess {
  command: string[];
  env: Record<string, string>;
}

/**
 * The containers of the rendered objects, their env resolved as the kubelet would (values, secretKeyRef to the
 * rendered Secret, envFrom the rendered ConfigMap), and each ConfigMap mount written under `mounts` with the env
 * values that name its path pointed there.
 */
function podProcesses(objects: any[], mounts: string): Map<string, PodProcess> {
  const secrets = new Map(objects.filter((o) => o.kind === 'Secret').map((o) => [o.metadata.name, o.stringData as Record<string, string>]));
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data as Record<string, string>]));
  const pods = new Map<string, PodProcess>();
  for (const o of objects.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
    const spec = o.spec.template.spec;
    const c = spec.containers[0];
    const env: Record<string, string> = {};
    for (const from of c.envFrom ?? []) Object.assign(env, configMaps.get(from.configMapRef.name));
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      const value = ref ? secrets.get(ref.name)?.[ref.key] : e.value;
      if (value !== undefined) env[e.name] = value;
    }
    const moved: [string, string][] = [];
    for (const m of c.volumeMounts ?? []) {
      const volume = spec.volumes.find((v: any) => v.name === m.name);
      if (!volume?.configMap) continue;
      const dir = path.join(mounts, o.metadata.name, m.name);
      mkdirSync(dir, { recursive: true });
      for (const item of volume.configMap.items) writeFileSync(path.join(dir, item.path), configMaps.get(volume.configMap.name)![item.key]);
      moved.push([m.mountPath, dir]);
    }
    for (const [name, value] of Object.entries(env))
      for (const [from, to] of moved) if (value.startsWith(from)) env[name] = to + value.slice(from.length);
    pods.set(c.name, { command: c.command, env: Object.fromEntries(Object.entries(env).filter(([k]) => /^[A-Z][A-Z0-9_]*$/.test(k))) });
  }
  return pods;
}

function start(pod: PodProcess, over: Record<string, string>): ChildProcess & { output(): string } {
  // The image's working directory is the built checkout (/app holds package.json, node_modules and dist).
  const child = spawn(pod.command[0] === 'node' ? process.execPath : pod.command[0], pod.command.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...pod.env, ...over },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  return Object.assign(child, { output: () => output });
}

/**
 * The chart's evaluation install, its migration, API and worker containers run as processes of this machine (their
 * commands and environments as rendered; their addresses pointed at this machine's Postgres and Temporal and the
 * evaluation identity provider), and the README quick start run against them.
 */
describe('the rendered pods, run as processes', () => {
  const database = `mos_rendered_pods_${process.pid}`;
  const admin = () => knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
  const children: ChildProcess[] = [];
  let dataDir: string;
  let modelServer: ModelServer;
  let apiUrl: string;
  let adminToken: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'mos-rendered-pods-'));
    const db = admin();
    await db.raw(`CREATE DATABASE ${database}`).finally(() => db.destroy());
    const url = new URL(testEnv.databaseUrl);
    url.pathname = `/${database}`;
    modelServer = await startModelServer({ port: 0 });
    const idpPort = await freePort();
    const idp = start(
      {
        command: ['node', 'dist/src/bin/eval-idp.js'],
        env: { AUTH_DEV_ISSUER: 'on', EVAL_IDP_DATA_DIR: dataDir, EVAL_IDP_PORT: String(idpPort) },
      },
      {},
    );
    children.push(idp);
    adminToken = await eventually(async () => /admin token \(12 h\): (\S+)/.exec(idp.output())?.[1], 30000, 'the evaluation IdP');

    const objects = yamlDocuments(
      render(
        [path.join(chartDir, 'examples', 'evaluation.yaml')],
        [
          `temporal.address=${testEnv.temporalAddress}`,
          `temporal.taskQueue=${uid('rendered-pods')}`,
          `secrets.databaseUrl=${url.toString()}`,
          `auth.jwksUrl=http://127.0.0.1:${idpPort}/jwks.json`,
          `auth.issuer=${DEV_ISSUER}`,
          'config.AUTH_DEV_ISSUER=on',
          // The quick start's http handler is the model-server stand-in on 127.0.0.1, as under npm start.
          'config.WEBHOOK_ALLOW_HTTP=true',
          'config.WEBHOOK_ALLOWED_PRIVATE_RANGES=127.0.0.1/32',
          'machineClients.acme.access=tenant',
          'machineClients.acme.tenants={acme}',
        ],
      ),
    );
    const pods = podProcesses(objects, path.join(dataDir, 'mounts'));
    expect([...pods.keys()].sort()).toEqual(['api', 'migrate', 'worker']);

    const migrate = start(pods.get('migrate')!, {});
    children.push(migrate);
    const code = await new Promise<number | null>((r) => migrate.once('exit', r));
    expect({ code, output: code === 0 ? '' : migrate.output() }).toEqual({ code: 0, output: '' });

    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    const api = start(pods.get('api')!, { PORT: String(port), PUBLIC_BASE_URL: apiUrl });
    const worker = start(pods.get('worker')!, {
      WORKER_METRICS_PORT: String(await freePort()),
      WORKER_SDK_METRICS_PORT: String(await freePort()),
    });
    children.push(api, worker);
    await eventually(async () => api.output().includes('API listening') || api.exitCode !== null, 60000, 'the API');
    await eventually(async () => worker.output().includes('worker running') || worker.exitCode !== null, 120000, 'the worker');
    expect({ api: api.exitCode, worker: worker.exitCode }).toEqual({ api: null, worker: null });
  }, 240000);
  afterAll(async () => {
    for (const c of children.reverse()) await killHard(c);
    await modelServer?.close();
    rmSync(dataDir, { recursive: true, force: true });
    const db = admin();
    await db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => db.destroy());
  });

  it('answer the README quick start', async () => {
    const blocks = bashBlocks('README.md', 'Quick start');
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN|MODEL_SERVER)=.*$/gm, '');
    const out = await promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120000,
      env: { ...process.env, API: apiUrl, TOKEN: adminToken, MODEL_SERVER: modelServer.url, MOS_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    }).then(
      (r) => r.stdout,
      (err) => {
        throw new Error(`quick start failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
      },
    );
    expect(out).toMatch(/"status": "success",\s+"output": \{\s+"score": 0.92/);
    expect(out).toMatch(/"whsec_"\n\{\s+"status": "success",\s+"output": \{\s+"model": "stand-in",\s+"score": 0.64\s+\}\s+\}\s*$/);
  }, 180000);
});
