import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import type { JobLauncher } from '../temporal/job-launcher';
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

export function registerHealthRoutes(route: Register, deps: { knex: Knex; temporal: Client; launcher: JobLauncher }) {
  route('getHealth', async ({ ctx }) => {
    const [database, temporal] = await Promise.all([
      probe(() => deps.knex.raw('select 1')),
      probe(() => deps.temporal.workflowService.getSystemInfo({})),
    ]);
    // Temporal may answer while jobs still cannot start (e.g. the namespace lacks the job search attributes).
    const jobStarts = temporal === 'ok' ? await deps.launcher.readiness() : { ok: false as const, reason: 'Temporal is unavailable' };
    const job_starts = jobStarts.ok ? 'ok' : `unavailable: ${jobStarts.reason}`;
    const ok = database === 'ok' && temporal === 'ok' && jobStarts.ok;
    ctx.status = ok ? 200 : 503;
    return { status: ok ? 'ok' : 'degraded', database, temporal, job_starts };
  });
}
