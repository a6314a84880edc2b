import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { connectNative, connectTemporalClient } from '../../../src/temporal/connection';
import { temporalEndpointSettings } from '../../../src/temporal/connection-settings';
import { TemporalCredentials } from '../../../src/temporal/credentials';
import { makeTestCa, rotateInPlace, type Issued, type TestCa } from '../../helpers/certificates';
import { startFakeFrontend, type FakeFrontend } from '../../helpers/fake-frontend';

/*
 * The connection settings against a frontend of the test's own (test/helpers/fake-frontend.ts) with certificates the
 * test makes: what each setting does, and that each wrong one is refused at once with a message naming it. The same
 * settings against temporal-server itself: temporal-tls.test.ts.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'mos-connection-'));
let ca: TestCa;
let otherCa: TestCa;
let serverCert: Issued;
let service: Issued;
const frontends: FakeFrontend[] = [];
const clients: Client[] = [];

beforeAll(() => {
  ca = makeTestCa('ca', root);
  otherCa = makeTestCa('other-ca', root);
  serverCert = ca.server('frontend', ['frontend.temporal.test']);
  service = ca.client('service', 'model-orchestration');
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.connection.close();
  for (const f of frontends.splice(0)) await f.stop();
});

async function frontend(options: Parameters<typeof startFakeFrontend>[0] = {}): Promise<FakeFrontend> {
  const f = await startFakeFrontend({ cert: serverCert.cert, key: serverCert.key, ...options });
  frontends.push(f);
  return f;
}

function mtlsEnv(client: Issued = service, caFile = ca.cert): Record<string, string> {
  return { TEMPORAL_TLS_SERVER_CA_CERT_PATH: caFile, TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: client.key };
}

async function connect(address: string, env: Record<string, string>): Promise<Client> {
  const client = await connectTemporalClient({ address, ...temporalEndpointSettings(env) }, 'default', 30000);
  clients.push(client);
  return client;
}

/** The refusal of a connection, and how long it took to come: a wrong setting must not wait out the 30 s of a starting server. */
async function refusal(address: string, env: Record<string, string>): Promise<{ message: string; ms: number }> {
  const started = Date.now();
  try {
    await connect(address, env);
  } catch (err) {
    return { message: (err as Error).message, ms: Date.now() - started };
  }
  throw new Error('connected');
}

describe('connecting to a Temporal frontend over TLS', () => {
  it('connects with mTLS, presenting the client certificate', async () => {
    const f = await frontend({ clientCa: ca.cert });
    await connect(f.address, mtlsEnv());
    expect(f.calls.map((c) => c.clientName)).toContain('model-orchestration');
  });

  it('connects with TLS alone, verifying the server against the CA', async () => {
    const f = await frontend();
    await connect(f.address, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert });
    expect(f.calls.length).toBeGreaterThan(0);
  });

  it('checks the server against TEMPORAL_TLS_SERVER_NAME when set', async () => {
    const f = await frontend();
    await connect(f.address, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert, TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.test' });
  });

  it('sends the API key as a bearer token', async () => {
    const f = await frontend({ apiKey: 'the-api-key' });
    await connect(f.address, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert, TEMPORAL_API_KEY: 'the-api-key' });
    expect(f.calls.every((c) => c.authorization === 'Bearer the-api-key')).toBe(true);
  });
});

describe('a wrong connection setting', () => {
  it.each([
    [
      'a CA that did not sign the server',
      () => ({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: otherCa.cert }),
      'is not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    ],
    [
      'a server name the certificate does not hold',
      () => ({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert, TEMPORAL_TLS_SERVER_NAME: 'elsewhere.test' }),
      'is not for "elsewhere.test"',
    ],
    ['no TLS to a TLS frontend', () => ({}), 'speaks TLS: set TEMPORAL_TLS=true'],
  ])('is refused at once: %s', async (_name, env, message) => {
    const f = await frontend();
    const { message: got, ms } = await refusal(f.address, env());
    expect(got).toContain(message);
    expect(ms).toBeLessThan(10000);
  });

  it('is refused at once: TLS to a plaintext frontend', async () => {
    const f = await frontend({ cert: undefined, key: undefined });
    const { message, ms } = await refusal(f.address, { TEMPORAL_TLS: 'true' });
    expect(message).toContain('TEMPORAL_TLS is on but the Temporal frontend at');
    expect(message).toContain('does not speak TLS');
    expect(ms).toBeLessThan(10000);
  });

  it('is refused at once: no client certificate where mTLS is required', async () => {
    const f = await frontend({ clientCa: ca.cert });
    const { message, ms } = await refusal(f.address, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert });
    expect(message).toContain('requires a client certificate (mTLS): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH');
    expect(ms).toBeLessThan(10000);
  });

  it('is refused at once: a client certificate the server does not trust', async () => {
    const f = await frontend({ clientCa: ca.cert });
    const stranger = otherCa.client('stranger', 'stranger');
    const { message, ms } = await refusal(f.address, mtlsEnv(stranger));
    expect(message).toContain(`refused the client certificate of TEMPORAL_TLS_CLIENT_CERT_PATH (${stranger.cert})`);
    expect(ms).toBeLessThan(10000);
  });

  it('is refused at once: a wrong API key', async () => {
    const f = await frontend({ apiKey: 'the-api-key' });
    const { message, ms } = await refusal(f.address, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert, TEMPORAL_API_KEY: 'not-the-key' });
    expect(message).toContain('refused the API key of TEMPORAL_API_KEY: Request unauthorized.');
    expect(ms).toBeLessThan(10000);
  });

  it.each([
    ['an expired client certificate', () => ca.client('expired', 'expired', { expired: true }), 'the certificate expired at'],
    [
      'a key of another certificate',
      () => ({ cert: service.cert, key: ca.client('other', 'other').key }),
      'is not the key of the certificate',
    ],
    ['a missing key file', () => ({ cert: service.cert, key: path.join(root, 'absent.key') }), 'cannot be read: no such file'],
  ])('is refused before any connection: %s', async (_name, issued, message) => {
    const f = await frontend({ clientCa: ca.cert });
    const { message: got } = await refusal(f.address, mtlsEnv(issued()));
    expect(got).toContain(message);
    expect(got).toMatch(/TEMPORAL_TLS_CLIENT_(CERT|KEY)_PATH/);
    expect(f.calls).toEqual([]);
  });

  it('is refused by the worker’s native connection too, with the same message', async () => {
    const f = await frontend({ clientCa: ca.cert });
    const endpoint = { address: f.address, ...temporalEndpointSettings({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: otherCa.cert }) };
    await expect(connectNative(new TemporalCredentials(endpoint))).rejects.toThrow(
      'is not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    );
  });
});

describe('credentials rotated on disk', () => {
  it('are presented at the next TLS connection, without a restart', async () => {
    const f = await frontend({ clientCa: ca.cert });
    const live = ca.client('live', 'first-certificate');
    const client = await connect(f.address, { ...mtlsEnv(live), TEMPORAL_TLS_REFRESH_SECONDS: '1' });
    rotateInPlace(live, ca.client('renewed', 'renewed-certificate'));
    await new Promise((r) => setTimeout(r, 1500)); // clock: one refresh interval (TEMPORAL_TLS_REFRESH_SECONDS=1) passes
    // The frontend restarts (a new pod): the connection's next handshake is made with the files as they are now.
    await f.restart();
    await client.connection.workflowService.getSystemInfo({});
    expect(f.calls.at(-1)?.clientName).toBe('renewed-certificate');
  });

  it('send the API key as its file holds it now', async () => {
    const f = await frontend();
    const file = path.join(root, 'api-key');
    writeFileSync(file, 'first-key\n');
    const client = await connect(f.address, {
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert,
      TEMPORAL_API_KEY_FILE: file,
      TEMPORAL_TLS_REFRESH_SECONDS: '1',
    });
    writeFileSync(file, 'second-key\n');
    await new Promise((r) => setTimeout(r, 1500)); // clock: one refresh interval (TEMPORAL_TLS_REFRESH_SECONDS=1) passes
    await client.connection.workflowService.getSystemInfo({});
    expect(f.calls.at(-1)?.authorization).toBe('Bearer second-key');
  });
});
