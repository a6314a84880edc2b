import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { loadConfig, type Config } from '../config';
import { createLogger } from '../logger';
import { migrateLatest } from '../db/knex';
import { composeApi, composeWorker, openResources } from '../composition';
import { startDevServer } from './temporal/dev-server';
import { startTemporalServer } from './temporal/server';
import { startEmbeddedPostgres } from './embedded-postgres';
import type { Tracing } from '../observability/tracing';
import { loadDevKey, serveJwks, mintDevToken, DEV_ISSUER, DEV_PLATFORM_CLIENT } from './dev-auth';
import { loadDevSecretKeys } from './dev-secrets';
import { parseSecretKeys } from '../secrets/secret-keys';
import { createSecretBox } from '../secrets/secret-box';
import { startModelServer } from './model-server';

/**
 * Refuses a busy PORT before anything starts: the API listens last, after Postgres and Temporal have started, and
 * would otherwise fail with a bare EADDRINUSE half a minute later.
 */
async function assertPortFree(port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `port ${port} is in use (another npm start?), so the API cannot listen on it: set PORT, e.g. PORT=${port + 1} npm start`,
            )
          : err,
      ),
    );
    probe.listen(port, () => probe.close(() => resolve()));
  });
}

/** Where `npm start` serves the model-server stand-in; a free port when it is taken. */
const MODEL_SERVER_PORT = 8090;

export interface DevRunnerOptions {
  env: Record<string, string | undefined>;
  root: string;
  /** Where embedded Postgres, the Temporal SQLite file and the dev key live. */
  dataDir: string;
  /** Preferred ports of the dev server; free ones are taken when these are busy. */
  temporalPorts?: { grpc: number; ui: number };
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Tracing started by the caller before these modules loaded (src/bin/dev.ts); off when omitted. */
  tracing?: Tracing;
}

export interface DevRunner {
  apiUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  /** Printed by npm start when the dev key is in use. */
  adminToken?: string;
  /** The worker's /metrics (with the Temporal SDK's series) when WORKER_METRICS_PORT is set. */
  workerMetricsUrl?: string;
  /** The model-server stand-in (src/dev/model-server.ts) an `http` handler can point at: `<url>/sync`, `<url>/async`. */
  modelServerUrl: string;
  /** The embedded Postgres it started (its port is chosen at each start), for psql and the banner. */
  embeddedPostgresUrl?: string;
  /** What this runner started itself, for the log and the tests. */
  started: string[];
  stop(): Promise<void>;
}

/**
 * The whole service on one machine. Starts embedded Postgres when DATABASE_URL is unset, the Temporal dev
 * server (with its Web UI) when TEMPORAL_ADDRESS is unset, and a dev signing key when AUTH_JWKS_URL is unset;
 * then migrates and runs the API and the worker in this process (composed as every process composes them,
 * src/composition/index.ts). `stop` undoes all of it, newest first.
 */
export async function startDevRunner(options: DevRunnerOptions): Promise<DevRunner> {
  const config = devConfig(options.env);
  const log = createLogger(config.logLevel, 'dev');
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((err) => log.warn({ err }, 'cleanup failed'));
  };

  if (config.port !== 0) await assertPortFree(config.port);
  try {
    const local = await startWhatIsUnset(config, options, cleanups);
    const resources = await openResources({ config, log, poolName: 'mos-dev', tracing: options.tracing });
    cleanups.push(() => resources.close());
    await migrateLatest(resources.knex, createSecretBox(config.secretKeys));

    const api = composeApi({ ...resources, console: { devToken: local.adminToken } });
    const server = await api.listen(config.port);
    const closeApi = () => api.close();
    cleanups.push(closeApi);
    const apiUrl = `http://localhost:${(server.address() as { port: number }).port}`;
    // The worker hands handlers completion URLs built from publicBaseUrl: with PORT=0 the port is known only now,
    // so the worker is composed after the API listens.
    if (options.env.PUBLIC_BASE_URL === undefined) config.publicBaseUrl = apiUrl;

    // One process, one registry of metrics: the API's /metrics shows the worker's series too.
    const worker = await composeWorker({ ...resources, workflowBundle: options.workflowBundle, poolName: 'mos-dev' });
    const workerRun = worker.run();
    cleanups.push(async () => {
      await worker.close();
      await workerRun;
    });
    // Stopping, the API closes before the worker does.
    cleanups.splice(cleanups.indexOf(closeApi), 1);
    cleanups.push(closeApi);

    return {
      apiUrl,
      temporalAddress: local.temporalAddress,
      temporalUiUrl: config.temporal.uiUrl,
      adminToken: local.adminToken,
      workerMetricsUrl: worker.metricsServer?.url,
      modelServerUrl: local.modelServerUrl,
      embeddedPostgresUrl: local.embeddedPostgresUrl,
      started: local.started,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The settings of `env`, with what one machine running both the API and the worker needs filled in. */
function devConfig(env: NodeJS.ProcessEnv): Config {
  const config = loadConfig(env);
  // The API and the worker run in this process: a key of this run's own signs and verifies the job tokens.
  if (!config.jobs.tokenKeys.length) config.jobs.tokenKeys = [{ kid: 'dev', secret: new Uint8Array(randomBytes(32)) }];
  // The model-server stand-in listens on 127.0.0.1 over http: on one machine, `http` handlers (and webhooks) may reach
  // it unless the outbound policy was set explicitly.
  if (env.WEBHOOK_ALLOW_HTTP === undefined) config.webhooks.allowHttp = true;
  if (env.WEBHOOK_ALLOWED_PRIVATE_RANGES === undefined) config.webhooks.allowedPrivateRanges = ['127.0.0.1/32'];
  return config;
}

/**
 * Starts what the settings leave unset (Postgres, Temporal, a signing key, secret keys) and the model-server
 * stand-in, writing what each gives into `config`; each pushes its cleanup.
 */
async function startWhatIsUnset(config: Config, options: DevRunnerOptions, cleanups: (() => Promise<void>)[]) {
  const started: string[] = [];
  let embeddedPostgresUrl: string | undefined;
  if (!config.databaseUrl) {
    const pg = await startEmbeddedPostgres(options.root, ['--dir', options.dataDir]);
    cleanups.push(() => pg.stop());
    config.databaseUrl = pg.url;
    embeddedPostgresUrl = pg.url;
    started.push('postgres');
  }
  let temporalAddress = config.temporal.address;
  if (!temporalAddress) {
    const temporal = await startTemporal(config, options, cleanups);
    config.temporal.address = temporalAddress = temporal.address;
    started.push(temporal.name);
  }
  const modelServer = await startModelServer({ port: MODEL_SERVER_PORT }).catch(() => startModelServer({ port: 0 }));
  cleanups.push(() => modelServer.close());
  let adminToken: string | undefined;
  if (!config.auth.jwksUrl) {
    adminToken = await startDevAuth(config, options.dataDir, cleanups);
    started.push('dev-auth');
  }
  if (!config.secretKeys.length) {
    config.secretKeys = parseSecretKeys(loadDevSecretKeys(options.dataDir));
    started.push('dev-secrets');
  }
  return { started, temporalAddress, embeddedPostgresUrl, adminToken, modelServerUrl: modelServer.url };
}

/**
 * A Temporal server of `TEMPORAL_MODE` (`dev`: the CLI's dev server; `server`: the production-shaped server, keeping
 * its state in two databases beside the service's own), its binaries built first if missing.
 */
async function startTemporal(
  config: Config,
  options: DevRunnerOptions,
  cleanups: (() => Promise<void>)[],
): Promise<{ name: string; address: string }> {
  const mode = options.env.TEMPORAL_MODE || 'dev';
  if (mode !== 'dev' && mode !== 'server') throw new Error(`TEMPORAL_MODE must be dev or server, not ${mode}`);
  const setup = spawnSync('bash', [path.join(options.root, 'scripts/setup-temporal.sh'), mode === 'dev' ? 'cli' : 'server'], {
    stdio: 'inherit',
  });
  if (setup.status !== 0) throw new Error('the Temporal binaries are not available (see the message above)');
  const ports = options.temporalPorts ?? { grpc: 7233, ui: 8233 };
  // The runner starts the embedded Postgres before Temporal when DATABASE_URL is unset, so there always is one.
  const postgresUrl = config.databaseUrl;
  if (!postgresUrl) throw new Error('the production-shaped Temporal server needs a Postgres (DATABASE_URL)');
  const server =
    mode === 'dev'
      ? await startDevServer({ dbFile: path.join(options.dataDir, 'temporal', 'temporal.db'), port: ports.grpc, uiPort: ports.ui })
      : await startTemporalServer({
          postgresUrl,
          workDir: path.join(options.dataDir, 'temporal-server'),
          port: ports.grpc,
          uiPort: ports.ui,
        });
  cleanups.push(() => server.stop());
  config.temporal.uiUrl ??= server.uiUrl ?? undefined;
  return { name: mode === 'dev' ? 'temporal' : 'temporal-server', address: server.address };
}

/** The dev signing key's JWKS served locally, the settings pointed at it, and a platform admin token it signed. */
async function startDevAuth(config: Config, dataDir: string, cleanups: (() => Promise<void>)[]): Promise<string> {
  const { privateKey, publicJwk } = await loadDevKey(dataDir);
  const jwks = await serveJwks(publicJwk);
  cleanups.push(() => new Promise((r) => jwks.server.close(() => r())));
  config.auth.jwksUrl = jwks.url;
  config.auth.issuer = DEV_ISSUER;
  config.auth.machineClients[DEV_PLATFORM_CLIENT] ??= { access: 'platform', tenants: [] };
  return mintDevToken(privateKey, publicJwk.kid, {
    sub: DEV_PLATFORM_CLIENT,
    client_id: DEV_PLATFORM_CLIENT,
    scope: `${config.auth.scopePrefix}admin`,
  });
}
