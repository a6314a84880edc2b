import { connectivityState } from '@grpc/grpc-js';
import { Client, Connection, type ConnectionOptions, type WorkflowClientInterceptor } from '@temporalio/client';
import { closeSafeRetries, type CloseSafeRetries } from './close-safe-retries';

/**
 * A Temporal connection whose `close()` first ends the calls waiting for a gRPC retry (see close-safe-retries.ts),
 * so nothing it started can throw after it closed. Every connection of the service, its tools and its tests is one.
 */
export class TemporalConnection extends Connection {
  private retries?: CloseSafeRetries;

  /** Connects (the SDK's `Connection.connect`), with retries that a close ends. */
  static async open(options: Omit<ConnectionOptions, 'interceptors'> = {}): Promise<TemporalConnection> {
    const retries = closeSafeRetries();
    const connection = this.lazy({ ...options, interceptors: [retries.interceptor] }) as TemporalConnection;
    connection.retries = retries;
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
    await super.close();
  }
}

/**
 * Connects a Temporal client, retrying while the server starts (up to `waitMs`). `interceptors` time the
 * client's calls and carry the trace context into workflow headers.
 */
export async function connectTemporalClient(
  address: string,
  namespace: string,
  waitMs = 30000,
  interceptors: WorkflowClientInterceptor[] = [],
): Promise<Client> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const connection = await TemporalConnection.open({ address, connectTimeout: 2000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } catch (err) {
        await connection.close();
        throw err;
      }
      return new Client({ connection, namespace, interceptors: { workflow: interceptors } });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} did not answer within ${waitMs} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
