import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { staleOrphans } from '../db/jobs.repository';
import type { JobGateway } from './job-gateway';
import { redeliverUnconfirmed } from './outcome-redelivery';

/** Runs `pass` every `everyMs` (the first after `firstMs`), one at a time; returns its stop. */
function every(everyMs: number, firstMs: number, pass: () => Promise<void>): () => void {
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    await pass();
    if (running) timer = setTimeout(() => void tick(), everyMs);
  };
  timer = setTimeout(() => void tick(), firstMs);
  return () => {
    running = false;
    if (timer) clearTimeout(timer);
  };
}

/**
 * Keeps job rows and their workflows together where a crash parted them. Job rows are committed before their
 * workflow starts; if the API dies in between, the row stays `pending`: every such row's workflow is started
 * (starting is idempotent by workflow id). An outcome recorded from a completion update that Temporal lost (docs/temporal.md,
 * "Completions Temporal lost") is reported to the workflow again, every `redeliverEveryMs`.
 */
export function startReconciler(deps: {
  knex: Knex;
  gateway: JobGateway;
  log: Logger;
  everyMs?: number;
  graceSeconds?: number;
  redeliverEveryMs?: number;
  redeliverAfterSeconds?: number;
}) {
  const pass = async () => {
    try {
      for (const job of await staleOrphans(deps.knex, deps.graceSeconds ?? 30)) {
        await deps.gateway.launch(job);
        deps.log.info({ jobId: job.job_id }, 'reconciler started the workflow of a pending job');
      }
    } catch (err) {
      deps.log.warn({ err }, 'reconciler pass failed');
    }
  };
  const redeliver = async () => {
    try {
      await redeliverUnconfirmed({ ...deps, afterSeconds: deps.redeliverAfterSeconds });
    } catch (err) {
      deps.log.warn({ err }, 'reconciler pass over unconfirmed outcomes failed');
    }
  };
  const stops = [every(deps.everyMs ?? 15000, 1000, pass), every(deps.redeliverEveryMs ?? 5000, deps.redeliverEveryMs ?? 5000, redeliver)];
  return {
    /** One pass over pending rows now (tests). */
    runOnce: pass,
    /** One pass over unconfirmed outcomes now (tests). */
    redeliverOnce: redeliver,
    stop() {
      for (const stop of stops) stop();
    },
  };
}
