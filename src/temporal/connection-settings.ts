import { ConfigError, integer, type Env } from '../env-values';

/**
 * How every process of the service reaches its Temporal frontend: the address and, for the Temporal that production
 * runs, TLS (server CA, client certificate for mTLS, server name) and a Temporal Cloud API key. The names are the
 * Temporal CLI's and SDKs' environment configuration (`TEMPORAL_TLS_CLIENT_CERT_PATH`, ...), and the CLI's older
 * short names (`TEMPORAL_TLS_CERT`, ...) are read too; docs/temporal.md, "Connecting to your Temporal".
 */
export interface TemporalEndpoint {
  address: string;
  /** TLS on the connection; absent: plaintext. */
  tls?: TemporalTlsSettings;
  /** A Temporal Cloud API key (sent as `Authorization: Bearer …`; TLS is implied). */
  apiKey?: ApiKeySource;
  /** Seconds between reads of the certificate, key and API key files, to take a rotated one without a restart. */
  refreshSeconds?: number;
}

export interface TemporalTlsSettings {
  /** PEM file of the CA(s) that sign the server's certificate; the system's roots when absent. */
  ca?: FileSetting;
  /** PEM files of the client certificate and its key (mTLS); both or neither. */
  cert?: FileSetting;
  key?: FileSetting;
  /** Name the server's certificate is checked against (and sent as SNI), when it is not the address's host. */
  serverName?: string;
}

/** A file path, with the variable that named it: every message about the file names the variable. */
export interface FileSetting {
  path: string;
  setting: string;
}

/** The API key itself (TEMPORAL_API_KEY), or the file that holds it (TEMPORAL_API_KEY_FILE, read again on rotation). */
export interface ApiKeySource {
  setting: 'TEMPORAL_API_KEY' | 'TEMPORAL_API_KEY_FILE';
  value?: string;
  file?: string;
}

/** One setting under its current name and its older one; both set and different is a mistake worth stopping on. */
function aliased(env: Env, current: string, older: string): FileSetting | undefined {
  const a = env[current] || undefined;
  const b = env[older] || undefined;
  if (a && b && a !== b) throw new ConfigError(`${current} and ${older} name the same file; set one (got "${a}" and "${b}")`);
  if (a) return { path: a, setting: current };
  if (b) return { path: b, setting: older };
  return undefined;
}

function tlsSwitch(env: Env): boolean | undefined {
  const raw = env.TEMPORAL_TLS;
  if (raw === undefined || raw === '') return undefined;
  if (['true', 'on', '1'].includes(raw)) return true;
  if (['false', 'off', '0'].includes(raw)) return false;
  throw new ConfigError(`TEMPORAL_TLS must be true or false (on or off), got "${raw}"`);
}

/** The connection settings of TEMPORAL_*; throws ConfigError naming the variable at fault. */
export function temporalEndpointSettings(env: Env): Omit<TemporalEndpoint, 'address'> {
  const ca = aliased(env, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_CA');
  const cert = aliased(env, 'TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CERT');
  const key = aliased(env, 'TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_KEY');
  const serverName = env.TEMPORAL_TLS_SERVER_NAME || undefined;
  if (cert && !key) throw new ConfigError(`${cert.setting} is set without TEMPORAL_TLS_CLIENT_KEY_PATH: mTLS needs the certificate's key`);
  if (key && !cert) throw new ConfigError(`${key.setting} is set without TEMPORAL_TLS_CLIENT_CERT_PATH: mTLS needs the key's certificate`);
  if (env.TEMPORAL_API_KEY && env.TEMPORAL_API_KEY_FILE) throw new ConfigError('set TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both');
  const apiKey: ApiKeySource | undefined = env.TEMPORAL_API_KEY
    ? { value: env.TEMPORAL_API_KEY.trim(), setting: 'TEMPORAL_API_KEY' }
    : env.TEMPORAL_API_KEY_FILE
      ? { file: env.TEMPORAL_API_KEY_FILE, setting: 'TEMPORAL_API_KEY_FILE' }
      : undefined;
  const refreshSeconds = integer(env, 'TEMPORAL_TLS_REFRESH_SECONDS', 60, 1);
  const requested = tlsSwitch(env);
  const anyTls = Boolean(ca || cert || serverName);
  if (requested === false && (anyTls || apiKey)) {
    const given = [ca?.setting, cert?.setting, serverName && 'TEMPORAL_TLS_SERVER_NAME', apiKey?.setting].filter(Boolean);
    throw new ConfigError(`TEMPORAL_TLS is false but ${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} set, which need TLS`);
  }
  const tls = requested || anyTls || apiKey ? { ca, cert, key, serverName } : undefined;
  return { tls, apiKey, refreshSeconds };
}

/** Whether the address is Temporal Cloud's (`<ns>.<account>.tmprl.cloud:7233`, or a regional `….api.temporal.io:7233`). */
export function isTemporalCloud(address: string | undefined): boolean {
  const host = (address ?? '').replace(/:\d+$/, '').toLowerCase();
  return host.endsWith('.tmprl.cloud') || host.endsWith('.api.temporal.io');
}
