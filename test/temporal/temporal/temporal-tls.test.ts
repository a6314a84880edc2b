import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { connectNative, connectTemporalClient, followRotations } from '../../../src/temporal/connection';
import { temporalEndpointSettings } from '../../../src/temporal/connection-settings';
import { TemporalCredentials } from '../../../src/temporal/credentials';
import { startTemporalServer, type TemporalServer } from '../../../src/dev/temporal/server';
import { projectRoot } from '../../../src/paths';
import { makeTestCa, rotateInPlace, type Issued, type TestCa } from '../../helpers/certificates';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { composeWorker, openResources } from '../../../src/composition';
import { jobGatewayFor } from '../../../src/temporal/job-gateway';
import { missingSearchAttributes } from '../../../src/temporal/search-attributes';
import { TEST_SECRET_KEYS } from '../../helpers/secret-keys';
import { testEnv } from '../../helpers/test-env';
import { eventually } from '../../helpers/fixtures';
import { dropDatabases } from '../../helpers/own-temporal';

/*
 * The production-shaped server (temporal-server, Postgres persistence) with TLS on its frontend and client
 * certificates required (mTLS), certificates made here with openssl: the service's connections with the right
 * settings, each wrong one refused with its message, and a client certificate and CA rotated while running.
 * The same settings against a frontend of the test's own, TLS alone and API keys among them: temporal-connection.test.ts.
 */

const haveServer = existsSync(path.join(projectRoot(), '.tools/bin/temporal-server'));
// The server is built by `npm run setup:temporal -- server` (npm run test:server does it); without it there is nothing to run.
const describeWithServer = haveServer ? describe : describe.skip;

const root = mkdtempSync(path.join(os.tmpdir(), 'mos-tls-server-'));
/** Signs the frontend's certificate (which its own services present as clients too). */
let ca: TestCa;
/** Signs the service's client certificates; `nextCa` after the rotation. */
let clientCa: TestCa;
let nextCa: TestCa;
let otherCa: TestCa;
let service: Issued;
let server: TemporalServer;
/** The CA bundle the frontend takes client certificates from; rewritten by the rotation test. */
const clientCas = path.join(root, 'client-cas.pem');
const closers: (() => Promise<unknown>)[] = [];

/** The frontend takes client certificates of `clients`' CA, and its own services' (of `ca`). */
function trustClientsOf(clients: TestCa): void {
  writeFileSync(clientCas, Buffer.concat([readFileSync(ca.cert), readFileSync(clients.cert)]));
}

function mtlsEnv(client: Issued = service, caFile = ca.cert): Record<string, string> {
  return { TEMPORAL_TLS_SERVER_CA_CERT_PATH: caFile, TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: client.key };
}

async function connect(env: Record<string, string>): Promise<Client> {
  const client = await connectTemporalClient({ address: server.address, ...temporalEndpointSettings(env) }, 'default', 30000);
  closers.push(() => client.connection.close());
  return client;
}

async function refusal(env: Record<string, string>): Promise<{ message: string; ms: number }> {
  const started = Date.now();
  try {
    await connect(env);
  } catch (err) {
    return { message: (err as Error).message, ms: Date.now() - started };
  }
  throw new Error('connected');
}

describeWithServer('temporal-server with mTLS on its frontend', () => {
  beforeAll(async () => {
    ca = makeTestCa('ca', root);
    clientCa = makeTestCa('client-ca', root);
    nextCa = makeTestCa('next-ca', root);
    otherCa = makeTestCa('other-ca', root);
    const frontend = ca.server('frontend');
    service = clientCa.client('service', 'model-orchestration');
    trustClientsOf(clientCa);
    server = await startTemporalServer({
      postgresUrl: testEnv.databaseUrl,
      databasePrefix: `mos_tls_temporal_${process.pid}_${Date.now()}`,
      workDir: path.join(root, 'server'),
      headless: true,
      // Within the suites' share of Postgres connections (README, "Postgres connections").
      postgresConnections: { main: 3, visibility: 1 },
      tls: { certFile: frontend.cert, keyFile: frontend.key, caFile: ca.cert, clientCaFile: clientCas },
    });
  }, 180000);

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  afterAll(async () => {
    if (!server) return;
    await server.stop();
    await dropDatabases([server.databases.main, server.databases.visibility]);
  });

  it('takes the client and the worker’s native connection with the client certificate', async () => {
    const client = await connect(mtlsEnv());
    await expect(client.connection.workflowService.describeNamespace({ namespace: 'default' })).resolves.toBeDefined();
    const native = await connectNative(new TemporalCredentials({ address: server.address, ...temporalEndpointSettings(mtlsEnv()) }));
    closers.push(() => native.close());
  });

  it('runs the service’s worker and API from the settings alone: the worker registers the search attributes over mTLS, and the API is ready', async () => {
    const config = loadConfig({
      ...mtlsEnv(),
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: `tls-${process.pid}`,
      DATABASE_URL: testEnv.databaseUrl,
      DATABASE_POOL_MAX: '2',
      SECRET_KEYS: TEST_SECRET_KEYS,
      WORKER_SHUTDOWN_GRACE_SECONDS: '0',
    });
    const resources = await openResources({ config, log: pino({ level: 'silent' }), poolName: 'mos-test-tls' });
    closers.push(() => resources.close());
    const worker = await composeWorker({
      ...resources,
      workflowBundle: { codePath: testEnv.workflowBundlePath },
      loops: false,
      serveMetrics: false,
    });
    const running = worker.run();
    closers.push(async () => {
      await worker.close();
      await running.catch(() => undefined);
    });
    expect(await missingSearchAttributes(resources.temporal.connection, 'default')).toEqual([]);
    await eventually(async () => (await jobGatewayFor(resources.temporal, config).readiness()).ok, 30000, 'the API to be ready');
  });

  it.each([
    ['no client certificate', () => ({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert }), 'requires a client certificate (mTLS)'],
    [
      'a client certificate of a CA it does not trust',
      () => mtlsEnv(otherCa.client('stranger', 'stranger')),
      'refused the client certificate of TEMPORAL_TLS_CLIENT_CERT_PATH',
    ],
    [
      'a CA that did not sign its certificate',
      () => mtlsEnv(service, otherCa.cert),
      'is not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    ],
    ['no TLS at all', () => ({}), 'speaks TLS: set TEMPORAL_TLS=true'],
    [
      'a server name its certificate does not hold',
      () => ({ ...mtlsEnv(), TEMPORAL_TLS_SERVER_NAME: 'elsewhere.test' }),
      'is not for "elsewhere.test"',
    ],
    [
      'an expired client certificate',
      () => mtlsEnv(clientCa.client('expired', 'expired', { expired: true })),
      'the certificate expired at',
    ],
  ])('refuses %s at once, naming the setting', async (_name, env, message) => {
    const { message: got, ms } = await refusal(env());
    expect(got).toContain(message);
    expect(ms).toBeLessThan(15000);
  });

  it('keeps a running client and worker connected across a rotation of the client certificate and of the CA the server trusts', async () => {
    const live = clientCa.client('live', 'before-rotation');
    const env = { ...mtlsEnv(live), TEMPORAL_TLS_REFRESH_SECONDS: '1' };
    const client = await connect(env);
    const credentials = new TemporalCredentials({ address: server.address, ...temporalEndpointSettings(env) });
    const worker: { connection?: NativeConnection } = { connection: await connectNative(credentials) };
    const replaced: string[] = [];
    const close = followRotations(worker as never, credentials, {
      info: (_obj, msg) => replaced.push(msg),
      warn: (obj, msg) => replaced.push(`${msg}: ${String((obj as { err?: Error }).err?.message)}`),
    });
    closers.push(close);
    const first = worker.connection;

    // The platform moves to a new client CA: certificates from it on disk first, then the server trusts only it.
    rotateInPlace(live, nextCa.client('renewed', 'after-rotation'));
    trustClientsOf(nextCa);
    await new Promise((r) => setTimeout(r, 2500)); // clock: the refresh interval passes, so the client holds the new files
    await server.restart();

    // The old certificate would now be refused: both connections answer with the new one, no restart of theirs.
    await expect(client.connection.workflowService.describeNamespace({ namespace: 'default' })).resolves.toBeDefined();
    // The worker's new connection was refused until the server trusted the new CA, and is tried again each refresh.
    await eventually(
      async () => replaced.includes('the worker took the rotated Temporal TLS files'),
      15000,
      'the worker to take the rotation',
    );
    expect(worker.connection).not.toBe(first);
    await expect(worker.connection!.workflowService.describeNamespace({ namespace: 'default' })).resolves.toBeDefined();
  }, 180000);
});
