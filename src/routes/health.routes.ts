import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import type { JobGateway } from '../temporal/job-gateway';
import type { ServingState } from '../http/serving-state';
import { pendingMigrations } from '../db/migration-status';
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

interface HealthDeps {
  knex: Knex;
  temporal: Client;
  gateway: JobGateway;
  serving: ServingState;
}

/** Postgres, Temporal, and whether jobs could start (the namespace defines the job search attributes). */
async function dependencies(deps: HealthDeps) {
  const [database, temporal] = await Promise.all([
    probe(() => deps.knex.raw('select 1')),
    probe(() => deps.temporal.withDeadline(Date.now() + 3000, () => deps.temporal.workflowService.getSystemInfo({}))),
  ]);
  // Temporal may answer while jobs still cannot start (e.g. the namespace lacks the job search attributes).
  const jobStarts = temporal === 'ok' ? await deps.gateway.readiness() : { ok: false as const, reason: 'Temporal is unavailable' };
  const job_starts = jobStarts.ok ? 'ok' : `unavailable: ${jobStarts.reason}`;
  return { database, temporal, job_starts, ok: database === 'ok' && temporal === 'ok' && jobStarts.ok };
}

async function migrationState(knex: Knex): Promise<string> {
  try {
    const pending = await withTimeout(pendingMigrations(knex), 3000);
    return pending.length ? `pending: ${pending.join(', ')}` : 'ok';
  } catch (err) {
    return `unavailable: ${(err as Error).message}`;
  }
}

export function registerHealthRoutes(route: Register, deps: HealthDeps) {
  // The spec's health route: the dependencies, whatever the process's own state.
  route('getHealth', async ({ ctx }) => {
    const { ok, ...checks } = await dependencies(deps);
    ctx.status = ok ? 200 : 503;
    return { status: ok ? 'ok' : 'degraded', ...checks };
  });

  // Liveness answers while draining too: restarting a process that is finishing its requests loses them.
  route('getLiveness', async () => ({ status: 'ok' }));

  route('getReadiness', async ({ ctx }) => {
    if (deps.serving.draining) {
      ctx.status = 503;
      return { status: 'not_ready', serving: 'draining' };
    }
    const [{ ok, ...checks }, migrations] = await Promise.all([dependencies(deps), migrationState(deps.knex)]);
    const ready = ok && migrations === 'ok';
    ctx.status = ready ? 200 : 503;
    return { status: ready ? 'ready' : 'not_ready', serving: 'ok', ...checks, migrations };
  });
}
