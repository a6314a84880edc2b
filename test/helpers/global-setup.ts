import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer } from '../../src/dev/temporal/dev-server';
import { startTemporalServer, TemporalServer } from '../../src/dev/temporal/server';
import { clusterAddresses, startTemporalCluster } from '../../src/dev/temporal/cluster';
import { temporalEndpointSettings } from '../../src/temporal/connection-settings';
import { TemporalCredentials } from '../../src/temporal/credentials';
import { makeTestCa } from './certificates';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { TemporalConnection } from '../../src/temporal/connection';
import globalSetupPostgres from './global-setup-postgres';

/**
 * The temporal and e2e tiers' global setup (jest.config.js): the db tier's migrated template database
 * (global-setup-postgres.ts, made once in a run of several tiers) and one Temporal server for the whole run.
 * TEST_TEMPORAL=server runs the production-shaped server (Postgres persistence, SQL visibility) instead of
 * the dev server; TEST_TEMPORAL=cluster the same split into a cluster of 7 processes with mTLS required on its
 * frontends (certificates made here; the service's settings reach the tests as MOS_TEST_TEMPORAL_TLS).
 * TEMPORAL_ADDRESS, when set, names a server to use instead of starting one.
 * Either way the job search attributes are registered the way `npm run migrate` does it.
 */
export default async function globalSetup() {
  await globalSetupPostgres();
  if (process.env.MOS_TEST_TEMPORAL_ADDRESS) return;
  const started = Date.now();
  const state = (globalThis as any).__MOS__ as { adminUrl: string; dbName: string; server?: { stop(): Promise<void> } };
  const { adminUrl } = state;

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-test-'));
  const server = process.env.TEMPORAL_ADDRESS ? undefined : await startTemporal(adminUrl, `mos_temporal_${process.pid}_${Date.now()}`, tmp);
  const address = process.env.TEMPORAL_ADDRESS ?? server!.address;
  const tlsEnv = server?.tlsEnv ?? {};
  const connection = await TemporalConnection.open({ address }, new TemporalCredentials({ address, ...temporalEndpointSettings(tlsEnv) }));
  await ensureSearchAttributes(connection, 'default');
  await connection.close();
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietLogger });
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);

  process.env.MOS_TEST_TEMPORAL_ADDRESS = address;
  process.env.MOS_TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.MOS_TEST_TEMPORAL_TLS = JSON.stringify(tlsEnv);
  process.env.MOS_TEST_TEMPORAL_FRONTENDS = JSON.stringify(server?.frontends ?? [address]);
  state.server = server;
  console.log(`[setup] Temporal ${address} (UI ${server?.uiUrl ?? 'n/a'}), ready in ${Date.now() - started} ms`);
}

/** The suite's Temporal, and the service's TEMPORAL_TLS_* settings when it requires them. */
async function startTemporal(
  adminUrl: string,
  databasePrefix: string,
  workDir: string,
): Promise<{ address: string; uiUrl?: string | null; tlsEnv?: Record<string, string>; frontends?: string[]; stop(): Promise<void> }> {
  const mode = process.env.TEST_TEMPORAL ?? 'dev';
  if (mode === 'dev') return startDevServer();
  if (mode === 'cluster') return startCluster(adminUrl, databasePrefix, workDir);
  if (mode !== 'server') throw new Error(`TEST_TEMPORAL must be dev, server or cluster, not ${mode}`);
  // The suite's share of a 100-connection Postgres (README, "Postgres connections"): at most 4 × (6 + 2).
  const server: TemporalServer = await startTemporalServer({
    postgresUrl: adminUrl,
    databasePrefix,
    workDir,
    headless: true,
    postgresConnections: { main: 6, visibility: 2 },
  });
  (globalThis as any).__MOS_TEMPORAL_DBS__ = server.databases;
  return server;
}

/**
 * 2 frontend, 2 history and 2 matching hosts and the worker service (src/dev/temporal/cluster.ts) with mTLS: the
 * frontends' certificate for every node address, client certificates required (the service's from a CA of its own),
 * the nodes talking TLS between them. TEMPORAL_CLUSTER_FIRST_ADDRESS and TEMPORAL_CLUSTER_PORT place it.
 */
async function startCluster(adminUrl: string, databasePrefix: string, workDir: string) {
  const ca = makeTestCa('cluster-ca', workDir);
  const clients = makeTestCa('service-ca', workDir);
  const nodeAddresses = clusterAddresses(process.env.TEMPORAL_CLUSTER_FIRST_ADDRESS || undefined);
  const frontend = ca.server('frontend', nodeAddresses);
  const service = clients.client('service', 'model-orchestration');
  // The frontends take the nodes' own certificate (the worker service is their client) and the service's.
  const clientCas = path.join(workDir, 'client-cas.pem');
  writeFileSync(clientCas, Buffer.concat([readFileSync(ca.cert), readFileSync(clients.cert)]));
  const cluster = await startTemporalCluster({
    postgresUrl: adminUrl,
    databasePrefix,
    workDir: path.join(workDir, 'cluster'),
    firstAddress: nodeAddresses[0],
    basePort: process.env.TEMPORAL_CLUSTER_PORT ? Number(process.env.TEMPORAL_CLUSTER_PORT) : undefined,
    // 7 × (3 + 1) within the suites' share of Postgres connections (README, "Postgres connections").
    postgresConnections: { main: 3, visibility: 1 },
    tls: { certFile: frontend.cert, keyFile: frontend.key, caFile: ca.cert, clientCaFile: clientCas },
  });
  (globalThis as any).__MOS_TEMPORAL_DBS__ = cluster.databases;
  return {
    address: cluster.frontends[0],
    frontends: cluster.frontends,
    tlsEnv: {
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert,
      TEMPORAL_TLS_CLIENT_CERT_PATH: service.cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: service.key,
    },
    stop: () => cluster.stop(),
  };
}

const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
