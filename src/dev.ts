import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Server } from 'node:http';
import { createRemoteJWKSet } from 'jose';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { createKnex, migrateLatest } from './db/knex';
import { connectTemporalClient } from './temporal/connection';
import { startDevServer, DevServer } from './temporal/dev-server';
import { jobLauncherFor } from './temporal/job-launcher';
import { createJobWorker } from './temporal/worker-factory';
import { startReconciler } from './temporal/reconciler';
import { createTokenVerifier } from './auth/verifier';
import { createApp } from './app';
import { builtinImplementations } from '../activities/in-process/registry';
import { loadDevKey, serveJwks, mintDevToken, DEV_ISSUER, DEV_PLATFORM_CLIENT } from './dev/dev-auth';
import { projectRoot } from './paths';

/**
 * `npm start`: the whole service on one machine. Starts embedded Postgres when DATABASE_URL is unset,
 * the Temporal dev server (with its Web UI) when TEMPORAL_ADDRESS is unset, and a dev signing key when
 * AUTH_JWKS_URL is unset; then migrates and runs the API and the worker in this process.
 */
async function run() {
  const root = projectRoot();
  const dataDir = path.join(root, '.data');
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'dev');
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => log.warn({ err }, 'cleanup failed'));
  };
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping everything npm start started');
    stopAll().finally(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    if (!config.databaseUrl) {
      const pg = await startEmbeddedPostgres(root, dataDir);
      cleanups.push(() => stopChild(pg.child));
      config.databaseUrl = pg.url;
      log.info('embedded Postgres started (data in .data/postgres)');
    }

    if (!config.temporal.address) {
      const setup = spawnSync('bash', [path.join(root, 'scripts/setup-temporal.sh')], { stdio: 'inherit' });
      if (setup.status !== 0) throw new Error('the Temporal CLI is not available (see the message above)');
      const server: DevServer = await startDevServer({ dbFile: path.join(dataDir, 'temporal', 'temporal.db'), port: 7233, uiPort: 8233 });
      cleanups.push(() => server.stop());
      config.temporal.address = server.address;
      config.temporal.uiUrl ??= server.uiUrl ?? undefined;
      log.info('Temporal dev server started (state in .data/temporal)');
    }

    let adminToken: string | undefined;
    if (!config.auth.jwksUrl) {
      const { privateKey, publicJwk } = await loadDevKey(dataDir);
      const jwks = await serveJwks(publicJwk);
      cleanups.push(() => new Promise((r) => jwks.server.close(() => r())));
      config.auth.jwksUrl = jwks.url;
      config.auth.issuer = DEV_ISSUER;
      config.auth.machineClients[DEV_PLATFORM_CLIENT] ??= { access: 'platform', tenants: [] };
      adminToken = await mintDevToken(privateKey, publicJwk.kid, {
        sub: DEV_PLATFORM_CLIENT, client_id: DEV_PLATFORM_CLIENT, scope: `${config.auth.scopePrefix}admin`,
      });
    }

    const knex = createKnex(config.databaseUrl);
    cleanups.push(() => knex.destroy());
    await migrateLatest(knex);

    const temporal = await connectTemporalClient(config.temporal.address, config.temporal.namespace);
    cleanups.push(() => temporal.connection.close());
    const launcher = jobLauncherFor(temporal, config);

    const { worker, connection } = await createJobWorker({ config, knex, client: temporal, log, inProcess: builtinImplementations });
    const workerRun = worker.run();
    cleanups.push(async () => {
      // The SDK already drains the worker on SIGINT/SIGTERM.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await workerRun;
      await connection.close();
    });
    const reconciler = startReconciler({ knex, launcher, log });
    cleanups.push(async () => reconciler.stop());

    const verify = createTokenVerifier({ keys: createRemoteJWKSet(new URL(config.auth.jwksUrl)), issuer: config.auth.issuer, audience: config.auth.audience });
    const { app } = createApp({ config, knex, temporal, launcher, verify, log, inProcessNames: Object.keys(builtinImplementations) });
    const server: Server = app.listen(config.port);
    await new Promise((r) => server.once('listening', r));
    cleanups.push(() => new Promise((r) => server.close(() => r())));

    const api = `http://localhost:${config.port}`;
    console.log(`
  Model Orchestration Service is running
    API          ${api}/v2/health
    API docs     ${api}/docs   (OpenAPI: ${api}/v2/openapi.json)
    Temporal UI  ${config.temporal.uiUrl ?? '(not configured: set TEMPORAL_UI_URL)'}
    Temporal     ${config.temporal.address}  task queue ${config.temporal.taskQueue}
${adminToken ? `
  Dev admin token (platform client "${DEV_PLATFORM_CLIENT}", scope ${config.auth.scopePrefix}admin, 12h):
    export TOKEN=${adminToken}
    curl -H "Authorization: Bearer $TOKEN" ${api}/v2/models
  Mint others:  npm run --silent token -- --client-id acme --scope "client_read service_init"
                npm run --silent token -- --user alice --groups "client:acme"
` : ''}
  Ctrl-C stops everything started here.
`);
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function startEmbeddedPostgres(root: string, dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(root, 'scripts/embedded-postgres.mjs'), '--dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /DATABASE_URL=(\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`embedded Postgres exited with code ${code}`)));
  });
  return { url, child };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

run().catch((err) => {
  console.error('npm start failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
