import pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ownConnectionConfig } from './types';

/** The channel the `model_jobs_notify_final` trigger notifies, with the job id, when a job reaches a final status. */
export const JOB_FINAL_CHANNEL = 'model_job_final';

export interface JobFinalListener {
  /**
   * Waits until `isFinal()` answers true or `ms` pass; answers the last `isFinal()`. `isFinal` runs once the
   * listener is registered (so a status reached meanwhile is not missed) and again on each notification for `jobId`
   * (or a reconnection, when one may have been missed), never on a timer.
   */
  waitFor(jobId: string, ms: number, isFinal: () => Promise<boolean>): Promise<boolean>;
  /** Waits on `jobId` that found it not final and are held until a notification (or their time runs out). */
  held(jobId: string): number;
  close(): Promise<void>;
}

/** A connection of its own that LISTENs on the final-status channel and says which job each notification names. */
async function openListener(
  knex: Knex,
  on: { notified(jobId: string): void; lost(err: Error, connection: pg.Client): void },
): Promise<pg.Client> {
  const c = new pg.Client(ownConnectionConfig(knex));
  c.on('notification', (msg) => {
    if (msg.channel === JOB_FINAL_CHANNEL && msg.payload) on.notified(msg.payload);
  });
  // Told with the connection itself: an error may come before the connect returns it.
  c.on('error', (err) => on.lost(err, c));
  await c.connect();
  await c.query(`LISTEN ${JOB_FINAL_CHANNEL}`);
  return c;
}

/** Sleeps until the waker handed to `arm` is called or `ms` pass; then takes the waker back. */
async function sleepUntilWoken(ms: number, arm: (wake: (() => void) | undefined) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    arm(resolve);
    timer = setTimeout(resolve, ms);
  });
  clearTimeout(timer);
  arm(undefined);
}

function wakeAll(waiters: Map<string, Set<() => void>>): void {
  for (const set of waiters.values()) for (const wake of set) wake();
}

/** Adds `wake` to the waiters of `jobId`; answers its removal. */
function enlist(waiters: Map<string, Set<() => void>>, jobId: string, wake: () => void): () => void {
  const set = waiters.get(jobId) ?? new Set();
  set.add(wake);
  waiters.set(jobId, set);
  return () => {
    set.delete(wake);
    if (set.size === 0 && waiters.get(jobId) === set) waiters.delete(jobId);
  };
}

/** Counts one more held wait on `jobId`; answers the count's release. */
function countHeld(holding: Map<string, number>, jobId: string): () => void {
  holding.set(jobId, (holding.get(jobId) ?? 0) + 1);
  return () => {
    if (holding.set(jobId, holding.get(jobId)! - 1).get(jobId) === 0) holding.delete(jobId);
  };
}

/**
 * One connection per process that LISTENs for final job statuses and wakes the requests waiting on those jobs
 * (`GET ...?wait=`): no request polls Postgres. Connects on the first wait; reconnects after a lost connection.
 */
export function createJobFinalListener(knex: Knex, log: Logger): JobFinalListener {
  const waiters = new Map<string, Set<() => void>>();
  const holding = new Map<string, number>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  async function connect(): Promise<void> {
    const c = await openListener(knex, {
      notified: (jobId) => {
        for (const wake of waiters.get(jobId) ?? []) wake();
      },
      lost: (err, lostClient) => {
        log.warn({ err }, 'job final-status listener lost its connection; reconnecting on the next wait');
        if (client === lostClient) client = undefined;
        lostClient.end().catch(() => undefined);
        wakeAll(waiters); // waiters read the row again, then wait on the next connection
      },
    });
    if (closed) await c.end();
    else client = c;
  }

  function ensureConnected(): Promise<void> {
    if (client || closed) return Promise.resolve();
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  return {
    async waitFor(jobId, ms, isFinal) {
      const deadline = Date.now() + ms;
      let signal: (() => void) | undefined;
      let signalled = false;
      const wake = () => {
        signalled = true;
        signal?.();
      };
      const leave = enlist(waiters, jobId, wake);
      try {
        try {
          await ensureConnected();
        } catch (err) {
          // Without the listener a wait cannot be woken: answer the current state now rather than poll.
          log.warn({ err }, 'job final-status listener cannot connect; answering without waiting');
          return await isFinal();
        }
        for (;;) {
          signalled = false;
          if (await isFinal()) return true;
          const left = deadline - Date.now();
          if (left <= 0 || closed) return false;
          if (!signalled) {
            const release = countHeld(holding, jobId);
            await sleepUntilWoken(left, (resolve) => (signal = resolve));
            release();
          }
          await ensureConnected().catch(() => undefined);
        }
      } finally {
        leave();
      }
    },
    held(jobId) {
      return holding.get(jobId) ?? 0;
    },
    async close() {
      closed = true;
      await connecting?.catch(() => undefined);
      wakeAll(waiters);
      const c = client;
      client = undefined;
      await c?.end();
    },
  };
}
