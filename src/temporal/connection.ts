import { Client, Connection } from '@temporalio/client';

/** Connects a Temporal client, retrying while the server starts (up to `waitMs`). */
export async function connectTemporalClient(address: string, namespace: string, waitMs = 30000): Promise<Client> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      await connection.workflowService.getSystemInfo({});
      return new Client({ connection, namespace });
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} did not answer within ${waitMs} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
