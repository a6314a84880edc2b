import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { listenOn } from '../../../db/notification-channel';
import type { JobSlots } from './job-slots';

/** The channel the `model_jobs_notify_slot` trigger notifies, with the client id, when a tenant's job finishes. */
export const JOB_SLOT_CHANNEL = 'model_job_slot';

/**
 * Starts a tenant's held jobs as soon as one of its jobs finishes (the notification of its final status), and
 * sweeps every tenant with held jobs every `sweepMs` (a notification missed while the connection was down, a cap
 * raised by an administrator). One per deployment is enough; more are harmless (each release takes the tenant's
 * lock and counts again).
 */
export function startSlotReleaser(deps: { knex: Knex; slots: JobSlots; log: Logger; sweepMs?: number }) {
  const { slots, log } = deps;
  // One release per tenant at a time; a notification during it asks for one more pass after it.
  const busy = new Map<string, boolean>();
  const inFlight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const release = (clientId: string): void => {
    if (busy.has(clientId)) return void busy.set(clientId, true);
    busy.set(clientId, false);
    track(
      slots
        .release(clientId)
        .catch((err: unknown) => log.warn({ err, clientId }, 'could not release held jobs; the next sweep tries again'))
        .finally(() => {
          const again = busy.get(clientId);
          busy.delete(clientId);
          if (again) release(clientId);
        }),
    );
  };
  const sweep = () =>
    track(slots.releaseAll().catch((err: unknown) => log.warn({ err }, 'sweep of held jobs failed; the next one tries again')));
  const listener = listenOn(deps.knex, JOB_SLOT_CHANNEL, log, { onPayload: release, onGap: sweep });
  const timer = setInterval(sweep, deps.sweepMs ?? 15_000);
  return {
    /** Settles once notifications are listened to. */
    ready: listener.ready,
    /** Stops listening and sweeping, then waits for the releases under way. */
    async stop() {
      clearInterval(timer);
      await listener.close();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
