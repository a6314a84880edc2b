import { Client, Connection, WorkflowClientInterceptor } from '@temporalio/client';

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
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      await connection.workflowService.getSystemInfo({});
      return new Client({ connection, namespace, interceptors: { workflow: interceptors } });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} did not answer within ${waitMs} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
