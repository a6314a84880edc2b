import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import tls, { rootCertificates, type ConnectionOptions as TlsOptions } from 'node:tls';
import { CallCredentials, ChannelCredentials } from '@grpc/grpc-js';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError } from '../env-values';
import type { FileSetting, TemporalEndpoint } from './connection-settings';

type SecureConnector = ReturnType<ChannelCredentials['_createSecureConnector']>;

/** What the settings' files hold, read and checked: each one is what a TLS handshake with the server would use. */
export interface CredentialMaterial {
  /** The CA bundle the server is verified against (the system's roots when TEMPORAL_TLS_SERVER_CA_CERT_PATH is unset). */
  ca?: Buffer;
  /** Whether `ca` came from the settings (and not the system's roots). */
  customCa: boolean;
  cert?: Buffer;
  key?: Buffer;
  /** When the client certificate stops being valid. */
  certValidTo?: Date;
  apiKey?: string;
}

function readSetting(file: FileSetting): Buffer {
  try {
    return readFileSync(file.path);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : message;
    throw new ConfigError(`${file.setting} (${file.path}) cannot be read: ${why}`);
  }
}

/** Every certificate of a PEM bundle, in order. */
function certificates(pem: Buffer, file: FileSetting): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new ConfigError(`${file.setting} (${file.path}) holds no PEM certificate`);
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new ConfigError(`${file.setting} (${file.path}) holds a certificate that does not parse: ${(err as Error).message}`);
    }
  });
}

function checkValidity(cert: X509Certificate, file: FileSetting, now: Date): void {
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  if (to < now) throw new ConfigError(`${file.setting} (${file.path}): the certificate expired at ${to.toISOString()}`);
  if (from > now) throw new ConfigError(`${file.setting} (${file.path}): the certificate is not valid before ${from.toISOString()}`);
}

/** Reads the files the endpoint names and checks them; throws ConfigError naming the setting and the cause. */
export function readCredentials(endpoint: Omit<TemporalEndpoint, 'address'>, now = new Date()): CredentialMaterial {
  const material: CredentialMaterial = { customCa: false };
  const tls = endpoint.tls;
  if (tls?.ca) {
    const pem = readSetting(tls.ca);
    const cas = certificates(pem, tls.ca);
    if (cas.every((c) => new Date(c.validTo) < now))
      throw new ConfigError(`${tls.ca.setting} (${tls.ca.path}): every certificate in it has expired`);
    material.ca = pem;
    material.customCa = true;
  } else if (tls) {
    material.ca = Buffer.from(rootCertificates.join('\n'));
  }
  if (tls?.cert && tls.key) {
    const cert = readSetting(tls.cert);
    const leaf = certificates(cert, tls.cert)[0];
    checkValidity(leaf, tls.cert, now);
    const keyPem = readSetting(tls.key);
    let key;
    try {
      key = createPrivateKey(keyPem);
    } catch (err) {
      throw new ConfigError(`${tls.key.setting} (${tls.key.path}) is not an unencrypted PEM private key: ${(err as Error).message}`);
    }
    if (!leaf.checkPrivateKey(key))
      throw new ConfigError(
        `${tls.key.setting} (${tls.key.path}) is not the key of the certificate in ${tls.cert.setting} (${tls.cert.path})`,
      );
    material.cert = cert;
    material.key = keyPem;
    material.certValidTo = new Date(leaf.validTo);
  }
  if (endpoint.apiKey) {
    const { setting, value, file } = endpoint.apiKey;
    const key = value ?? readSetting({ path: file!, setting }).toString('utf8').trim();
    if (!key) throw new ConfigError(`${setting}${file ? ` (${file})` : ''} is empty`);
    if (/\s/.test(key)) throw new ConfigError(`${setting}${file ? ` (${file})` : ''} holds white space inside the key`);
    material.apiKey = key;
  }
  return material;
}

function same(a?: Buffer, b?: Buffer): boolean {
  return a === b || (a !== undefined && b !== undefined && a.equals(b));
}

/** The host of `host:port` (or `[v6]:port`). */
export function hostOf(address: string): string {
  return /^\[?([^\]]+?)\]?(?::\d+)?$/.exec(address)?.[1] ?? address;
}

/**
 * The credentials of one connection, read from the settings' files and read again every `refreshSeconds`: a
 * certificate, key, CA or API key rotated in place (cert-manager, Vault) is taken by the next TLS handshake and the
 * next call, without a restart. A rotation caught half-written (a new certificate beside the old key) is not taken:
 * the last good set stays until the files agree again.
 *
 * The client's channel makes each TLS connection with the files as they are then (`channelCredentials`); the
 * worker's native connection cannot change its TLS in place, so its owner listens with `onChange` and replaces it.
 */
export class TemporalCredentials {
  private material: CredentialMaterial;
  private context?: tls.SecureContext;
  private readonly changeListeners = new Set<(material: CredentialMaterial) => void>();
  private timer?: NodeJS.Timeout;

  /** Reads and checks the files now; throws ConfigError naming the setting at fault. */
  constructor(
    readonly endpoint: TemporalEndpoint,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.material = readCredentials(endpoint);
  }

  get current(): CredentialMaterial {
    return this.material;
  }

  get tls(): boolean {
    return this.endpoint.tls !== undefined;
  }

  /** Reads the files again; takes them when they changed and agree, keeps the last good set (and warns) when not. */
  refresh(): boolean {
    let next: CredentialMaterial;
    try {
      next = readCredentials(this.endpoint);
    } catch (err) {
      this.warn(`kept the Temporal credentials in use: ${(err as Error).message}`);
      return false;
    }
    const prev = this.material;
    if (same(prev.ca, next.ca) && same(prev.cert, next.cert) && same(prev.key, next.key) && prev.apiKey === next.apiKey) return false;
    this.material = next;
    this.context = undefined;
    for (const l of this.changeListeners) l(next);
    return true;
  }

  /** Starts reading the files every `refreshSeconds` (the timer does not hold the process open). */
  watch(): this {
    if (!this.timer && (this.endpoint.tls || this.endpoint.apiKey?.file)) {
      this.timer = setInterval(() => this.refresh(), (this.endpoint.refreshSeconds ?? 60) * 1000);
      this.timer.unref();
    }
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Called after a rotation was taken. */
  onChange(listener: (material: CredentialMaterial) => void): void {
    this.changeListeners.add(listener);
  }

  /**
   * The options of a TLS handshake with the frontend as the files are now. The server's certificate is checked
   * against TEMPORAL_TLS_SERVER_NAME or the address's host; SNI is sent for a name, never for an IP address (which
   * Node refuses as a server name).
   */
  tlsOptions(): TlsOptions {
    const host = hostOf(this.endpoint.address);
    const name = this.endpoint.tls?.serverName ?? host;
    const { ca, cert, key } = this.material;
    this.context ??= tls.createSecureContext({ ca, cert, key });
    return {
      secureContext: this.context,
      ALPNProtocols: ['h2'],
      servername: isIP(name) ? undefined : name,
      checkServerIdentity: (_host, peer) => tls.checkServerIdentity(name, peer),
    };
  }

  /** grpc-js channel credentials that make each new TLS connection with the files as they are then; none for plaintext. */
  channelCredentials(): ChannelCredentials | undefined {
    return this.tls ? new RotatingTlsCredentials(this) : undefined;
  }

  /** The TLS options of a native (worker) connection as the files are now. */
  nativeTls(): TLSConfig | undefined {
    if (!this.tls) return undefined;
    const { ca, customCa, cert, key } = this.material;
    return {
      serverNameOverride: this.endpoint.tls?.serverName,
      serverRootCACertificate: customCa ? ca : undefined,
      clientCertPair: cert && key ? { crt: cert, key } : undefined,
    };
  }
}

/**
 * TLS for grpc-js from the credentials as they are at each connection. grpc-js's own TLS credentials fix their files
 * when made, and name an IP address as the TLS server name, which Node refuses.
 */
class RotatingTlsCredentials extends ChannelCredentials {
  constructor(private readonly source: TemporalCredentials) {
    super();
  }

  _isSecure(): boolean {
    return true;
  }

  _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(_target: unknown, _options: unknown, callCredentials = CallCredentials.createEmpty()): SecureConnector {
    const source = this.source;
    return {
      connect: (socket) =>
        new Promise((resolve, reject) => {
          const secured = tls.connect({ socket, ...source.tlsOptions() }, () => {
            secured.off('error', reject);
            if (!secured.authorized) reject(secured.authorizationError);
            else resolve({ socket: secured, secure: true });
          });
          secured.once('error', reject);
        }),
      waitForReady: async () => undefined,
      getCallCredentials: () => callCredentials,
      destroy: () => undefined,
    };
  }
}
