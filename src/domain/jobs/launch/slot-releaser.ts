import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { listenOn } from '../../../db/notification-channel';
import type { JobSlots } from './job-slots';

/** The channel the `model_jobs_notify_slot` trigger notifies, with the client id, when a tenant's job finishes. */
export const JOB_SLOT_CHANNEL = 'model_job_slot';

/**
 * Starts held jobs as soon as a job finishes (the notification of its final status), in a release round across every
 * tenant with held jobs (a finish frees room in the tenant's cap and in the workers' capacity, which other tenants'
 * held jobs may take in their turn), and sweeps every `sweepMs` (a notification missed while the connection was
 * down, a cap raised by an administrator). One per deployment is enough; more are harmless (each release takes the
 * tenant's lock and counts again).
 */
export function startSlotReleaser(deps: { knex: Knex; slots: JobSlots; log: Logger; sweepMs?: number }) {
  const { slots, log } = deps;
  // One round at a time; finishes during it ask for one more round after it.
  let running: Promise<unknown> | undefined;
  let again = false;
  const round = (): void => {
    if (running) return void (again = true);
    again = false;
    running = slots
      .releaseAll()
      .catch((err: unknown) => log.warn({ err }, 'could not release held jobs; the next finish or sweep tries again'))
      .finally(() => {
        running = undefined;
        if (again) round();
      });
  };
  const release = (): void => round();
  const sweep = round;
  const listener = listenOn(deps.knex, JOB_SLOT_CHANNEL, log, { onPayload: release, onGap: sweep });
  const timer = setInterval(sweep, deps.sweepMs ?? 15_000);
  return {
    /** Settles once notifications are listened to. */
    ready: listener.ready,
    /** Stops listening and sweeping, then waits for the releases under way. */
    async stop() {
      clearInterval(timer);
      await listener.close();
      again = false;
      while (running) await running;
    },
  };
}
