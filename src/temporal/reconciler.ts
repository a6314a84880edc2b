import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { staleOrphans, type OrphanCursor } from '../db/jobs.repository';
import { jobStarter } from '../domain/job-starter';
import { UserSchemaCompiler } from '../domain/json-schemas';
import type { ServiceMetrics } from '../observability/metrics';
import type { JobGateway } from '../domain/ports/job-gateway';
import { redeliverUnconfirmed } from './outcome-redelivery';

const ORPHANS_PER_BATCH = 100;
const STARTS_IN_FLIGHT = 8;

/**
 * Runs `pass` every `everyMs` (the first after `firstMs`), one at a time; returns its stop, which waits for a pass
 * under way, so nothing uses the connections its caller closes next.
 */
function every(everyMs: number, firstMs: number, pass: () => Promise<void>): () => Promise<void> {
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  const tick = async () => {
    current = pass();
    await current;
    current = undefined;
    if (running) timer = setTimeout(() => void tick(), everyMs);
  };
  timer = setTimeout(() => void tick(), firstMs);
  return async () => {
    running = false;
    if (timer) clearTimeout(timer);
    await current;
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
  metrics?: ServiceMetrics;
  everyMs?: number;
  graceSeconds?: number;
  redeliverEveryMs?: number;
  redeliverAfterSeconds?: number;
}) {
  // The API's start: a row Temporal refuses for good is marked failed, a transient failure leaves it for the next
  // pass; neither stops the pass, so one bad row cannot keep every later one from starting.
  const start = jobStarter({ ...deps, schemas: new UserSchemaCompiler() });
  const pass = async () => {
    try {
      // Rows pile up while Temporal is away (the API accepts jobs on a readiness answer up to a minute old): a pass
      // starts all of them, a batch at a time, rather than one batch every `everyMs`.
      for (let after: OrphanCursor | undefined; ;) {
        const batch = await staleOrphans(deps.knex, deps.graceSeconds ?? 30, ORPHANS_PER_BATCH, after);
        for (let i = 0; i < batch.length; i += STARTS_IN_FLIGHT) {
          await Promise.all(
            batch.slice(i, i + STARTS_IN_FLIGHT).map(async (job) => {
              if ((await start(job)) === 'started')
                deps.log.info({ jobId: job.job_id }, 'reconciler started the workflow of a pending job');
            }),
          );
        }
        if (batch.length < ORPHANS_PER_BATCH) return;
        after = batch[batch.length - 1];
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
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
