import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import type { Register } from './types';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);
}

async function probe(fn: () => Promise<unknown>): Promise<string> {
  try {
    await withTimeout(fn(), 3000);
    return 'ok';
  } catch (err) {
    return `unavailable: ${(err as Error).message}`;
  }
}

export function registerHealthRoutes(route: Register, deps: { knex: Knex; temporal: Client }) {
  route('getHealth', async ({ ctx }) => {
    const [database, temporal] = await Promise.all([
      probe(() => deps.knex.raw('select 1')),
      // A gRPC deadline, not only the race: the client's own retries of an unreachable server end with it.
      probe(() => deps.temporal.withDeadline(Date.now() + 3000, () => deps.temporal.workflowService.getSystemInfo({}))),
    ]);
    const ok = database === 'ok' && temporal === 'ok';
    ctx.status = ok ? 200 : 503;
    return { status: ok ? 'ok' : 'degraded', database, temporal };
  });
}
