import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { staleOrphans } from '../db/jobs.repository';
import type { JobGateway } from './job-gateway';

/**
 * Job rows are committed before their workflow starts; if the API dies in between, the row stays `pending`.
 * This loop starts the workflow of every such row (starting is idempotent by workflow id).
 */
export function startReconciler(deps: { knex: Knex; gateway: JobGateway; log: Logger; everyMs?: number; graceSeconds?: number }) {
  const everyMs = deps.everyMs ?? 15000;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
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
  const tick = async () => {
    current = pass();
    await current;
    current = undefined;
    if (running) timer = setTimeout(() => void tick(), everyMs);
  };
  timer = setTimeout(() => void tick(), 1000);
  return {
    /** One pass now (tests). */
    runOnce: pass,
    /** Ends the loop and waits for a pass under way, so nothing uses the connections its caller closes next. */
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
