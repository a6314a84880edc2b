import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { temporalEndpointSettings } from '../../../src/temporal/connection-settings';
import { readCredentials, TemporalCredentials } from '../../../src/temporal/credentials';
import { makeTestCa, rotateInPlace, type TestCa } from '../../helpers/certificates';

const root = mkdtempSync(path.join(os.tmpdir(), 'mos-credentials-'));
let ca: TestCa;
let otherCa: TestCa;
beforeAll(() => {
  ca = makeTestCa('ca', root);
  otherCa = makeTestCa('other-ca', root);
});

function settings(env: Record<string, string>) {
  return temporalEndpointSettings(env);
}

describe('the Temporal connection settings', () => {
  it('are plaintext when no TLS setting or API key is given', () => {
    expect(settings({}).tls).toBeUndefined();
  });

  it('turn TLS on when any TLS setting or an API key is given', () => {
    expect(settings({ TEMPORAL_TLS_SERVER_NAME: 'x' }).tls).toBeDefined();
    expect(settings({ TEMPORAL_API_KEY: 'k' }).tls).toBeDefined();
    expect(settings({ TEMPORAL_TLS: 'true' }).tls).toEqual({});
  });

  it("read the Temporal CLI's names and its older short ones", () => {
    const current = settings({
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/c',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/k',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/a',
    });
    const older = settings({ TEMPORAL_TLS_CERT: '/c', TEMPORAL_TLS_KEY: '/k', TEMPORAL_TLS_CA: '/a' });
    expect(current.tls).toMatchObject({ cert: { path: '/c' }, key: { path: '/k' }, ca: { path: '/a' } });
    expect(older.tls).toMatchObject({ cert: { path: '/c', setting: 'TEMPORAL_TLS_CERT' }, ca: { setting: 'TEMPORAL_TLS_CA' } });
  });

  it.each([
    [{ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c' }, 'TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH'],
    [{ TEMPORAL_TLS_KEY: '/k' }, 'TEMPORAL_TLS_KEY is set without TEMPORAL_TLS_CLIENT_CERT_PATH'],
    [
      { TEMPORAL_TLS_CA: '/a', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/b' },
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH and TEMPORAL_TLS_CA name the same file',
    ],
    [{ TEMPORAL_API_KEY: 'k', TEMPORAL_API_KEY_FILE: '/f' }, 'set TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both'],
    [{ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }, 'TEMPORAL_TLS is false but TEMPORAL_API_KEY is set'],
    [{ TEMPORAL_TLS: 'yes' }, 'TEMPORAL_TLS must be true or false'],
  ])('refuse %j naming the setting', (env, message) => {
    expect(() => settings(env)).toThrow(message);
  });

  it('are part of the config every process loads', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_API_KEY_FILE: '/run/secrets/key' });
    expect(config.temporal).toMatchObject({ address: 'temporal:7233', tls: {}, apiKey: { file: '/run/secrets/key' } });
  });
});

describe('reading the credentials', () => {
  const mtls = (cert: string, key: string, caFile = ca.cert) =>
    settings({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: caFile, TEMPORAL_TLS_CLIENT_CERT_PATH: cert, TEMPORAL_TLS_CLIENT_KEY_PATH: key });

  it('takes a certificate, its key and a CA', () => {
    const client = ca.client('reader', 'reader');
    const material = readCredentials(mtls(client.cert, client.key));
    expect(material.customCa).toBe(true);
    expect(material.cert?.toString()).toContain('BEGIN CERTIFICATE');
  });

  it('uses the system roots when no CA is given', () => {
    expect(readCredentials(settings({ TEMPORAL_TLS: 'true' })).customCa).toBe(false);
  });

  it('refuses a missing file, naming the setting and the path', () => {
    const client = ca.client('missing', 'missing');
    expect(() => readCredentials(mtls(client.cert, '/nowhere/client.key'))).toThrow(
      'TEMPORAL_TLS_CLIENT_KEY_PATH (/nowhere/client.key) cannot be read: no such file',
    );
  });

  it('refuses a file it cannot read', () => {
    const client = ca.client('unreadable', 'unreadable');
    expect(() => readCredentials(mtls(client.cert, root))).toThrow(`TEMPORAL_TLS_CLIENT_KEY_PATH (${root}) cannot be read: EISDIR`);
  });

  it('refuses a key that is not the certificate’s', () => {
    const a = ca.client('pair-a', 'a');
    const b = ca.client('pair-b', 'b');
    expect(() => readCredentials(mtls(a.cert, b.key))).toThrow(
      `TEMPORAL_TLS_CLIENT_KEY_PATH (${b.key}) is not the key of the certificate in TEMPORAL_TLS_CLIENT_CERT_PATH (${a.cert})`,
    );
  });

  it('refuses an expired certificate', () => {
    const old = ca.client('expired', 'expired', { expired: true });
    expect(() => readCredentials(mtls(old.cert, old.key))).toThrow(
      `TEMPORAL_TLS_CLIENT_CERT_PATH (${old.cert}): the certificate expired at 2020-01-02T00:00:00.000Z`,
    );
  });

  it('refuses a CA file that holds no certificate', () => {
    const client = ca.client('no-ca', 'no-ca');
    expect(() => readCredentials(mtls(client.cert, client.key, client.key))).toThrow(
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH (${client.key}) holds no PEM certificate`,
    );
  });

  it('refuses an empty API key file', () => {
    const file = path.join(root, 'empty-key');
    writeFileSync(file, '\n');
    expect(() => readCredentials(settings({ TEMPORAL_API_KEY_FILE: file }))).toThrow(`TEMPORAL_API_KEY_FILE (${file}) is empty`);
  });
});

describe('rotated credentials', () => {
  it('are taken when the files change and agree', () => {
    const live = ca.client('live', 'first');
    const next = otherCa.client('next', 'second');
    const credentials = new TemporalCredentials({ address: 'x:1', ...mtlsOf(live) });
    const seen: string[] = [];
    credentials.onChange((material) => seen.push(material.cert!.toString()));
    rotateInPlace(live, next);
    expect(credentials.refresh()).toBe(true);
    expect(seen).toEqual([readFileSync(next.cert, 'utf8')]);
    expect(credentials.refresh()).toBe(false);
  });

  it('keep the last good set while a rotation is half-written, and warn', () => {
    const live = ca.client('half', 'first');
    const next = ca.client('half-next', 'second');
    const warnings: string[] = [];
    const credentials = new TemporalCredentials({ address: 'x:1', ...mtlsOf(live) }, (m) => warnings.push(m));
    const before = credentials.current;
    writeFileSync(live.cert, readFileSync(next.cert));
    expect(credentials.refresh()).toBe(false);
    expect(credentials.current).toBe(before);
    expect(warnings[0]).toContain('kept the Temporal credentials in use');
    expect(warnings[0]).toContain('is not the key of the certificate');
  });

  it('take a new API key from its file', () => {
    const file = path.join(root, 'api-key');
    writeFileSync(file, 'first-key\n');
    const credentials = new TemporalCredentials({ address: 'x:1', ...settings({ TEMPORAL_API_KEY_FILE: file }) });
    expect(credentials.current.apiKey).toBe('first-key');
    writeFileSync(file, 'second-key\n');
    credentials.refresh();
    expect(credentials.current.apiKey).toBe('second-key');
  });
});

function mtlsOf(issued: { cert: string; key: string }) {
  return settings({
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: issued.cert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: issued.key,
  });
}
