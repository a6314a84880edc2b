import { isIP } from 'node:net';
import tls from 'node:tls';
import type { TemporalEndpoint } from './connection-settings';
import { hostOf, type TemporalCredentials } from './credentials';

// gRPC status codes a frontend refuses credentials with.
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;

/** A Temporal frontend that cannot be used as configured; retrying will not help. The message names the setting. */
export class TemporalConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TemporalConnectError';
  }
}

function portOf(address: string): number {
  return Number(/:(\d+)$/.exec(address)?.[1] ?? 7233);
}

const HTTP2_PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

type Probe = { ok: true } | { ok: false; error: NodeJS.ErrnoException };

/**
 * One TLS handshake as the connection makes it (the same options), then an HTTP/2 preface: a server that refuses the client certificate
 * says so in an alert after the handshake (TLS 1.3), which the first read brings.
 */
function probe(address: string, options: tls.ConnectionOptions, timeoutMs: number): Promise<Probe> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: hostOf(address), port: portOf(address), ALPNProtocols: ['h2'], ...options });
    const done = (result: Probe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done({ ok: false, error: Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }) }), timeoutMs);
    let secured = false;
    socket.once('secureConnect', () => {
      secured = true;
      socket.write(HTTP2_PREFACE);
    });
    socket.once('data', () => done({ ok: true }));
    socket.once('error', (error) => done({ ok: false, error }));
    // A server that refuses the client certificate may just close, with no alert (Node's TLS servers do).
    socket.once('close', () =>
      done({
        ok: false,
        error: secured
          ? Object.assign(new Error('the server closed the connection right after the TLS handshake'), { code: 'ECLOSEDAFTERHANDSHAKE' })
          : Object.assign(new Error('closed by the server'), { code: 'ECONNRESET' }),
      }),
    );
  });
}

const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_SIGNATURE_FAILURE',
]);
/** Not a TLS matter: the server is down, starting, or unreachable, which a retry may outlast. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

/**
 * Why the frontend at the endpoint cannot be used with these credentials, when the cause is in the TLS settings
 * (and a retry would meet it again); undefined when the TLS handshake goes through, or fails for a passing reason.
 */
export async function diagnoseTls(credentials: TemporalCredentials, timeoutMs = 3000): Promise<string | undefined> {
  const { endpoint } = credentials;
  const { address } = endpoint;
  const host = hostOf(address);
  if (!endpoint.tls) {
    // A plaintext client meets a TLS frontend as a dropped connection; a handshake that goes through says why.
    const result = await probe(address, { rejectUnauthorized: false, servername: isIP(host) ? undefined : host }, timeoutMs);
    if (result.ok || /alert/i.test(result.error.message))
      return `the Temporal frontend at ${address} speaks TLS: set TEMPORAL_TLS=true (and TEMPORAL_TLS_SERVER_CA_CERT_PATH when its CA is not a public one)`;
    return undefined;
  }
  const name = endpoint.tls.serverName ?? host;
  const result = await probe(address, credentials.tlsOptions(), timeoutMs);
  if (result.ok) return undefined;
  const { code = '', message } = result.error;
  if (TRANSIENT.has(code)) return undefined;
  const ca = endpoint.tls.ca;
  const caName = ca
    ? `the CA of ${ca.setting} (${ca.path})`
    : 'any CA of the system roots (set TEMPORAL_TLS_SERVER_CA_CERT_PATH to its CA)';
  const cert = endpoint.tls.cert;
  const certName = cert ? `the client certificate of ${cert.setting} (${cert.path})` : 'the client certificate';
  if (NOT_TLS.has(code)) return `TEMPORAL_TLS is on but the Temporal frontend at ${address} does not speak TLS (${message})`;
  if (UNTRUSTED.has(code)) return `the Temporal frontend's certificate at ${address} is not signed by ${caName}: ${message}`;
  if (code === 'CERT_HAS_EXPIRED') return `the Temporal frontend's certificate at ${address} has expired`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the Temporal frontend's certificate at ${address} is not for "${name}" (${message}); set TEMPORAL_TLS_SERVER_NAME to a name it holds`;
  if (/certificate required|handshake failure/i.test(message) && !cert)
    return `the Temporal frontend at ${address} requires a client certificate (mTLS): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH`;
  if (/alert/i.test(message) || (code === 'ECLOSEDAFTERHANDSHAKE' && cert))
    return `the Temporal frontend at ${address} refused ${certName}: ${message}`;
  return `TLS with the Temporal frontend at ${address} failed: ${message}`;
}

/** Why the frontend refused a call, when it refused the credentials; undefined for any other failure. */
export function refusedCredentials(err: unknown, endpoint: TemporalEndpoint, namespace: string): string | undefined {
  const { code, details } = err as { code?: number; details?: string };
  if (code !== UNAUTHENTICATED && code !== PERMISSION_DENIED) return undefined;
  const who = endpoint.apiKey
    ? `the API key of ${endpoint.apiKey.setting}`
    : endpoint.tls?.cert
      ? `the client certificate of ${endpoint.tls.cert.setting} (${endpoint.tls.cert.path})`
      : 'this client (no TEMPORAL_API_KEY nor client certificate is set)';
  return code === UNAUTHENTICATED
    ? `the Temporal frontend at ${endpoint.address} refused ${who}: ${details ?? 'unauthenticated'}`
    : `the Temporal frontend at ${endpoint.address} does not allow ${who} on namespace "${namespace}": ${details ?? 'permission denied'}`;
}
