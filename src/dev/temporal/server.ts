import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TemporalConnection } from '../../temporal/connection';
import { TemporalCredentials } from '../../temporal/credentials';
import type { TemporalEndpoint } from '../../temporal/connection-settings';
import knexFactory from 'knex';
import Long from 'long';
import { ensurePrivateDir, projectRoot } from '../../paths';
import { freePort } from './dev-server';
import { dynamicConfigYaml, type DynamicValue } from './server-tuning';
import { spawnLogged, stopChild } from './child-process';

/**
 * The production-shaped Temporal server, run here from binaries built with `npm run setup:temporal -- server`:
 * temporal-server (frontend, history, matching and worker services in one process, 4 history shards) with
 * Postgres persistence and SQL visibility, its schema set up by temporal-sql-tool, and the Web UI server.
 */
export interface TemporalServer {
  address: string;
  uiUrl: string | null;
  /** The two Postgres databases the server keeps its state in. */
  databases: { main: string; visibility: string };
  stop(): Promise<void>;
  /** SIGKILLs temporal-server (a crash, for fault tests and the scale-out bench); resolves once it is gone. */
  kill(): Promise<void>;
  /** Starts temporal-server again on the same configuration and ports; resolves once it serves the namespace. */
  restart(): Promise<void>;
}

export interface TemporalServerOptions {
  /** Admin connection to the Postgres that holds Temporal's databases (they are created when missing). */
  postgresUrl: string;
  /** Prefix of the two database names: `<prefix>` and `<prefix>_visibility`. */
  databasePrefix?: string;
  /** Where the rendered configuration lives. */
  workDir: string;
  namespace?: string;
  port?: number;
  uiPort?: number;
  headless?: boolean;
  /** Dynamic configuration; src/dev/temporal/server-tuning.ts's by default. */
  dynamicConfig?: Record<string, DynamicValue>;
  historyShards?: number;
  /**
   * Most Postgres connections of each of the server's four services (frontend, history, matching, worker) to its
   * main and visibility databases: the server holds up to 4 × (main + visibility). Default 20 and 10.
   */
  postgresConnections?: { main: number; visibility: number };
  onOutput?: (line: string) => void;
  /**
   * TLS on the frontend (PEM files): its certificate and key, the CA its own services verify it with, and, for mTLS,
   * the CA bundle client certificates must chain to. The server's certificate doubles as the client certificate of
   * its own services and of the start-up check here, so it needs both serverAuth and clientAuth.
   */
  tls?: ServerTls;
}

export interface ServerTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** Require client certificates signed by a CA in this bundle (mTLS); TLS alone when unset. */
  clientCaFile?: string;
}

/** The frontend's TLS in the server's config: clients, its own services (worker service, internode) included. */
function tlsConfig(tls: ServerTls | undefined): string {
  if (!tls) return '';
  const pair = `certFile: "${tls.certFile}"\n        keyFile: "${tls.keyFile}"`;
  const client = `client:\n        serverName: "localhost"\n        rootCaFiles: ["${tls.caFile}"]`;
  return `
  tls:
    internode:
      server:
        ${pair}
      ${client}
    frontend:
      server:
        ${pair}
        requireClientAuth: ${tls.clientCaFile ? 'true' : 'false'}${tls.clientCaFile ? `\n        clientCaFiles: ["${tls.clientCaFile}"]` : ''}
      ${client}
    systemWorker:
      ${pair.replace('\n        ', '\n      ')}
      ${client.replace(/\n {8}/g, '\n        ')}`;
}

/** How this module's own checks reach a frontend with `tls`: as one of its services, with the server's certificate. */
export function adminEndpoint(address: string, tls: ServerTls | undefined): TemporalEndpoint {
  if (!tls) return { address };
  const file = (path: string) => ({ path, setting: 'the server TLS files' });
  return { address, tls: { ca: file(tls.caFile), cert: file(tls.certFile), key: file(tls.keyFile) } };
}

export function binary(name: string): string {
  const found = path.join(projectRoot(), '.tools/bin', name);
  if (!existsSync(found))
    throw new Error(`${name} not found: run \`npm run setup:temporal -- server\` (builds the server, its sql tool and the UI server once)`);
  return found;
}

/** Creates the database when missing and brings its schema to the version the sql tool embeds. */
async function prepareDatabase(pg: URL, database: string, schemaName: string): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: pg.toString(), pool: { min: 0, max: 1 } });
  try {
    const { rows } = await admin.raw<{ rows: unknown[] }>('select 1 from pg_database where datname = ?', [database]);
    if (rows.length === 0) await admin.raw(`create database "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.destroy();
  }
  const target = new URL(pg.toString());
  target.pathname = `/${database}`;
  const db = knexFactory({ client: 'pg', connection: target.toString(), pool: { min: 0, max: 1 } });
  let versioned: boolean;
  try {
    const { rows } = await db.raw<{ rows: { present: boolean }[] }>(`select to_regclass('public.schema_version') is not null as present`);
    versioned = rows[0].present;
  } finally {
    await db.destroy();
  }
  const base = [
    '--ep',
    pg.hostname,
    '-p',
    pg.port || '5432',
    '-u',
    decodeURIComponent(pg.username || 'postgres'),
    '--pl',
    'postgres12',
    '--db',
    database,
  ];
  if (pg.password) base.push('--pw', decodeURIComponent(pg.password));
  const run = (args: string[]) => {
    const result = spawnSync(binary('temporal-sql-tool'), [...base, ...args], { encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(`temporal-sql-tool ${args.join(' ')} failed on ${database}: ${result.stderr || result.stdout}`);
  };
  if (!versioned) run(['setup-schema', '-v', '0.0']);
  run(['update-schema', '--schema-name', schemaName]);
}

/** What one temporal-server process is configured with: its storage, ports, dynamic configuration and TLS. */
export interface ServerConfigOptions {
  pg: URL;
  main: string;
  visibility: string;
  shards: number;
  connections: { main: number; visibility: number };
  /** `<service>Grpc` and `<service>Membership` of frontend, history, matching and worker, and `frontendHttp`. */
  ports: Record<string, number>;
  dynamicConfig: string;
  tls?: ServerTls;
  /** The loopback address this process binds and is known by to its peers; 127.0.0.1 when alone. */
  ip?: string;
  /** The first frontend's address, for the cluster metadata; this process's own frontend when alone. */
  frontendAddress?: string;
}

/** The ports a server's configuration names, in the order they are taken. */
export const SERVER_PORTS = [
  'frontendGrpc',
  'frontendHttp',
  'frontendMembership',
  'historyGrpc',
  'historyMembership',
  'matchingGrpc',
  'matchingMembership',
  'workerGrpc',
  'workerMembership',
] as const;

/**
 * Writes the configuration of one temporal-server process under `root` and returns its start (called again to
 * restart it): the four services in one process, or the one `service` of a cluster's host.
 */
export function serverProcess(
  root: string,
  config: ServerConfigOptions,
  options: { service?: string; onOutput?: (line: string) => void } = {},
): () => ReturnType<typeof spawnLogged> {
  ensurePrivateDir(path.join(root, 'config'));
  writeFileSync(path.join(root, 'config', 'production.yaml'), serverConfig(config));
  const args = ['--root', root, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'];
  if (options.service) args.push('--service', options.service);
  return () => spawnLogged(binary('temporal-server'), args, options.onOutput);
}

/** Creates the main and visibility databases when missing and brings their schemas up to date. */
export async function prepareDatabases(pg: URL, main: string): Promise<{ main: string; visibility: string }> {
  const visibility = `${main}_visibility`;
  await prepareDatabase(pg, main, 'postgresql/v12/temporal');
  await prepareDatabase(pg, visibility, 'postgresql/v12/visibility');
  return { main, visibility };
}

function serverConfig(o: ServerConfigOptions): string {
  const ip = o.ip ?? '127.0.0.1';
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${o.pg.hostname}:${o.pg.port || '5432'}"
        connectProtocol: "tcp"
        user: "${decodeURIComponent(o.pg.username || 'postgres')}"
        password: "${decodeURIComponent(o.pg.password)}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (name: string) => `
  ${name}:
    rpc:
      grpcPort: ${o.ports[`${name}Grpc`]}
      membershipPort: ${o.ports[`${name}Membership`]}
      bindOnIP: "${ip}"${name === 'frontend' ? `\n      httpPort: ${o.ports.frontendHttp}` : ''}`;
  return `log:
  stdout: true
  level: warn
  format: json
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: ${o.shards}
  datastores:
    default:${store(o.main, o.connections.main)}
    visibility:${store(o.visibility, o.connections.visibility)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "${ip}"${tlsConfig(o.tls)}
services:${['frontend', 'history', 'matching', 'worker'].map(service).join('')}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "${o.frontendAddress ?? `${ip}:${o.ports.frontendGrpc}`}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "${o.dynamicConfig}"
  pollInterval: "60s"
`;
}

/** Waits until the frontend answers and the namespace exists, registering it on first start. */
export async function ensureNamespace(
  endpoint: TemporalEndpoint,
  namespace: string,
  { child, recent }: { child: ChildProcess; recent: string[] },
  timeoutMs: number,
): Promise<void> {
  const { address } = endpoint;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`temporal-server exited with code ${child.exitCode}; its last output:\n${recent.join('\n')}`);
    try {
      const connection = await TemporalConnection.open({ address, connectTimeout: 1000 }, new TemporalCredentials(endpoint));
      try {
        await connection.workflowService.getSystemInfo({});
        try {
          await connection.workflowService.describeNamespace({ namespace });
        } catch {
          await connection.workflowService
            .registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(3 * 24 * 3600) } })
            .catch((err: { code?: number }) => {
              if (err.code !== 6) throw err; // ALREADY_EXISTS: another process registered it
            });
        }
        // The frontend serves a namespace once its registry has loaded it (a couple of seconds after registering).
        await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`temporal-server did not serve namespace ${namespace} within ${timeoutMs} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const pg = new URL(options.postgresUrl);
  const namespace = options.namespace ?? 'default';
  const { main, visibility } = await prepareDatabases(pg, options.databasePrefix ?? 'temporal');

  const ports: Record<string, number> = { frontendGrpc: await freePort(options.port) };
  for (const name of SERVER_PORTS.slice(1)) ports[name] = await lowFreePort();
  ensurePrivateDir(path.join(options.workDir, 'config'));
  const dynamicConfig = path.join(options.workDir, 'config', 'dynamic-config.yaml');
  writeFileSync(dynamicConfig, dynamicConfigYaml(options.dynamicConfig));
  const spawnServer = serverProcess(
    options.workDir,
    {
      pg,
      main,
      visibility,
      shards: options.historyShards ?? 4,
      connections: options.postgresConnections ?? { main: 20, visibility: 10 },
      ports,
      dynamicConfig,
      tls: options.tls,
    },
    { onOutput: options.onOutput },
  );
  let server = spawnServer();
  const killOnExit = () => server.child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const address = `127.0.0.1:${ports.frontendGrpc}`;
  const children = [server];
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    for (const c of children.reverse()) await stopChild(c.child, c.exited, 15000);
  };
  const kill = async () => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return;
    server.child.kill('SIGKILL');
    await server.exited;
  };
  const restart = async () => {
    await kill();
    server = spawnServer();
    children[0] = server;
    await ensureNamespace(adminEndpoint(address, options.tls), namespace, server, 90000);
  };
  try {
    await ensureNamespace(adminEndpoint(address, options.tls), namespace, server, 90000);
    let uiUrl: string | null = null;
    if (!options.headless) {
      const ui = await startUiServer({ address, namespace, workDir: options.workDir, port: options.uiPort, onOutput: options.onOutput });
      children.push(ui);
      uiUrl = ui.url;
    }
    return { address, uiUrl, databases: { main, visibility }, stop, kill, restart };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The Temporal Web UI server for the plaintext frontend at `address`, on `port` (a free one when unset), once it
 * answers at the returned URL.
 */
export async function startUiServer(o: {
  address: string;
  namespace: string;
  workDir: string;
  port?: number;
  onOutput?: (line: string) => void;
}): Promise<ReturnType<typeof spawnLogged> & { url: string }> {
  const uiPort = await freePort(o.port);
  const uiDir = path.join(o.workDir, 'ui');
  ensurePrivateDir(path.join(uiDir, 'config'));
  writeFileSync(
    path.join(uiDir, 'config', 'production.yaml'),
    `temporalGrpcAddress: ${o.address}\nhost: 127.0.0.1\nport: ${uiPort}\nenableUi: true\ndefaultNamespace: ${o.namespace}\nrefreshInterval: 0s\ncors:\n  allowOrigins: []\n`,
  );
  const ui = spawnLogged(binary('temporal-ui-server'), ['--root', uiDir, '--config', 'config', '--env', 'production', 'start'], o.onOutput);
  const url = `http://127.0.0.1:${uiPort}`;
  try {
    await waitForHttp(url, ui.child, 30000);
  } catch (err) {
    await stopChild(ui.child, ui.exited, 5000);
    throw err;
  }
  return { ...ui, url };
}

/** A free port below 32768: the server stores membership ports in a smallint column. */
export async function lowFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = 10000 + Math.floor(Math.random() * 22000);
    if ((await freePort(candidate)) === candidate) return candidate;
  }
  throw new Error('no free port below 32768');
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal-ui-server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`temporal-ui-server did not answer at ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
