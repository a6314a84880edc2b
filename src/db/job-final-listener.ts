import pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

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

  function wakeAll() {
    for (const set of waiters.values()) for (const wake of set) wake();
  }

  async function connect(): Promise<void> {
    const connection = (knex.client as { config: { connection: string | pg.ClientConfig } }).config.connection;
    const c = new pg.Client(typeof connection === 'string' ? { connectionString: connection } : connection);
    c.on('notification', (msg) => {
      if (msg.channel !== JOB_FINAL_CHANNEL || !msg.payload) return;
      for (const wake of waiters.get(msg.payload) ?? []) wake();
    });
    c.on('error', (err) => {
      log.warn({ err }, 'job final-status listener lost its connection; reconnecting on the next wait');
      if (client === c) client = undefined;
      c.end().catch(() => undefined);
      wakeAll(); // waiters read the row again, then wait on the next connection
    });
    await c.connect();
    await c.query(`LISTEN ${JOB_FINAL_CHANNEL}`);
    if (closed) {
      await c.end();
      return;
    }
    client = c;
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
      const set = waiters.get(jobId) ?? new Set();
      set.add(wake);
      waiters.set(jobId, set);
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
            let timer: NodeJS.Timeout | undefined;
            holding.set(jobId, (holding.get(jobId) ?? 0) + 1);
            await new Promise<void>((resolve) => {
              signal = resolve;
              timer = setTimeout(resolve, left);
            });
            clearTimeout(timer);
            if (holding.set(jobId, holding.get(jobId)! - 1).get(jobId) === 0) holding.delete(jobId);
            signal = undefined;
          }
          await ensureConnected().catch(() => undefined);
        }
      } finally {
        set.delete(wake);
        if (set.size === 0 && waiters.get(jobId) === set) waiters.delete(jobId);
      }
    },
    held(jobId) {
      return holding.get(jobId) ?? 0;
    },
    async close() {
      closed = true;
      await connecting?.catch(() => undefined);
      wakeAll();
      const c = client;
      client = undefined;
      await c?.end();
    },
  };
}
