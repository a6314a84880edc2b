import { connectivityState } from '@grpc/grpc-js';
import { Client, Connection, type ConnectionOptions, type WorkflowClientInterceptor } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { closeSafeRetries, type CloseSafeRetries } from './close-safe-retries';
import type { TemporalEndpoint } from './connection-settings';
import { TemporalCredentials } from './credentials';
import { diagnoseTls, refusedCredentials, TemporalConnectError } from './connection-diagnosis';

export { TemporalConnectError };

// gRPC status of a namespace the frontend does not know.
const NOT_FOUND = 5;

/**
 * A Temporal connection whose `close()` first ends the calls waiting for a gRPC retry (see close-safe-retries.ts),
 * so nothing it started can throw after it closed. Every connection of the service, its tools and its tests is one.
 */
export class TemporalConnection extends Connection {
  private retries?: CloseSafeRetries;
  private credentials?: TemporalCredentials;

  /**
   * Connects (the SDK's `Connection.connect`), with retries that a close ends. With `credentials`, over TLS as they
   * say, each new TLS connection taking the files as they are then, and each call the API key as it is then.
   */
  static async open(options: Omit<ConnectionOptions, 'interceptors'> = {}, credentials?: TemporalCredentials): Promise<TemporalConnection> {
    const retries = closeSafeRetries();
    const connection = this.lazy({
      ...options,
      credentials: credentials?.channelCredentials(),
      interceptors: [retries.interceptor],
    }) as TemporalConnection;
    connection.retries = retries;
    connection.credentials = credentials;
    // Set after construction: the SDK refuses an `apiKey` option beside channel credentials of one's own.
    if (credentials?.current.apiKey) connection.setApiKey(() => credentials.current.apiKey ?? '');
    try {
      await connection.ensureConnected();
    } catch (err) {
      await connection.close();
      throw err;
    }
    return connection;
  }

  /** Calls waiting for a retry right now. */
  get waitingRetries(): number {
    return this.retries?.waiting ?? 0;
  }

  /** Whether the channel's last attempt to reach the server failed (calls made now fail at once and wait for a retry). */
  get unreachable(): boolean {
    return this.client.getChannel().getConnectivityState(false) === connectivityState.TRANSIENT_FAILURE;
  }

  override async close(): Promise<void> {
    this.retries?.stop();
    this.credentials?.stop();
    await super.close();
  }
}

/** The service's Temporal endpoint from its config (TEMPORAL_ADDRESS and the TLS and API key settings). */
export function endpointOf(temporal: { address?: string } & Omit<TemporalEndpoint, 'address'>): TemporalEndpoint {
  if (!temporal.address) throw new TemporalConnectError('TEMPORAL_ADDRESS is not set');
  return { address: temporal.address, tls: temporal.tls, apiKey: temporal.apiKey, refreshSeconds: temporal.refreshSeconds };
}

/** The gRPC error under the SDK's "Failed to connect" wrapper. */
function grpcCause(err: unknown): unknown {
  const cause = (err as { cause?: unknown }).cause;
  return cause && typeof (cause as { code?: unknown }).code === 'number' ? cause : err;
}

/**
 * Connects a Temporal client, retrying while the server starts (up to `waitMs`). `interceptors` time the
 * client's calls and carry the trace context into workflow headers. Credentials the frontend will never take (a file
 * that cannot be read, a key not of its certificate, a CA that does not verify the server, a refused API key) fail at
 * once with TemporalConnectError or ConfigError naming the setting; files rotated later are taken as they change.
 */
export async function connectTemporalClient(
  endpoint: TemporalEndpoint,
  namespace: string,
  waitMs = 30000,
  interceptors: WorkflowClientInterceptor[] = [],
  warn?: (message: string) => void,
): Promise<Client> {
  const credentials = new TemporalCredentials(endpoint, warn);
  const { address } = endpoint;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const connection = await TemporalConnection.open({ address, connectTimeout: 2000 }, credentials);
      try {
        await connection.workflowService.getSystemInfo({});
        await connection.workflowService.describeNamespace({ namespace });
      } catch (err) {
        await connection.close();
        throw err;
      }
      credentials.watch();
      return new Client({ connection, namespace, interceptors: { workflow: interceptors } });
    } catch (err) {
      const cause = grpcCause(err);
      const refused = refusedCredentials(cause, endpoint, namespace);
      if (refused) throw new TemporalConnectError(refused, { cause });
      const why = (cause as { code?: number }).code === NOT_FOUND ? undefined : await diagnoseTls(credentials);
      if (why) throw new TemporalConnectError(why, { cause });
      if (Date.now() > deadline) {
        const missing = (cause as { code?: number }).code === NOT_FOUND ? ` (namespace "${namespace}" not found)` : '';
        throw new TemporalConnectError(`Temporal at ${address} did not answer within ${waitMs} ms${missing}: ${(err as Error).message}`, {
          cause,
        });
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** A native (worker) connection with the credentials as they are now; a failure says why when the TLS settings are the cause. */
export async function connectNative(credentials: TemporalCredentials): Promise<NativeConnection> {
  const { endpoint, current } = credentials;
  try {
    return await NativeConnection.connect({ address: endpoint.address, tls: credentials.nativeTls(), apiKey: current.apiKey });
  } catch (err) {
    const refused = refusedCredentials(err, endpoint, '');
    const why = refused ?? (await diagnoseTls(credentials));
    throw why ? new TemporalConnectError(why, { cause: err }) : err;
  }
}

/**
 * Keeps a worker on the credentials' files as they rotate: a new API key is set on its connection, new TLS files
 * give it a new connection (the native one cannot change its TLS in place; the SDK moves the worker's polls over).
 * A new connection the frontend refuses (a certificate of a CA it does not trust yet) is tried again every refresh,
 * the worker keeping the connection it has meanwhile. Returns a close of whichever connection the worker has then.
 */
export function followRotations(
  worker: Pick<Worker, 'connection'>,
  credentials: TemporalCredentials,
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
): () => Promise<void> {
  let tls = credentials.nativeTls();
  let rotating = Promise.resolve();
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const follow = () => {
    clearTimeout(retry);
    rotating = rotating.then(async () => {
      if (stopped) return;
      const next = credentials.nativeTls();
      try {
        if (JSON.stringify(next) === JSON.stringify(tls)) {
          await worker.connection!.setApiKey(credentials.current.apiKey ?? '');
          return;
        }
        const previous = worker.connection!;
        worker.connection = await connectNative(credentials);
        tls = next;
        // No longer the worker's (the SDK let go of it), so nothing it runs needs it.
        await previous.close().catch((err: unknown) => log.warn({ err }, 'closing the replaced Temporal connection failed'));
        log.info({ certValidTo: credentials.current.certValidTo }, 'the worker took the rotated Temporal TLS files');
      } catch (err) {
        log.warn({ err }, 'the worker kept its Temporal connection: the rotated credentials did not connect; trying again');
        retry = setTimeout(follow, (credentials.endpoint.refreshSeconds ?? 60) * 1000);
        retry.unref();
      }
    });
  };
  credentials.onChange(follow);
  credentials.watch();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    credentials.stop();
    await rotating;
    await worker.connection?.close();
  };
}
