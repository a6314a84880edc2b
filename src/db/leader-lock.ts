import pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ownConnectionConfig } from './types';

/** The advisory lock of the worker's duties that must run once per deployment (one per database). */
export const WORKER_DUTIES_LOCK = 4_404_404_401;

export interface LeaderTiming {
  /** How often a replica that does not hold the lock asks for it again. */
  retryMs: number;
  /** How often the holder checks its lock's connection, and how long a check may take before it steps down. */
  checkMs: number;
}

/**
 * Postgres drops a session's advisory locks when its connection ends: at once when the holder's process dies (the
 * kernel closes its socket), and after these keepalives when its host or network goes (no socket is closed). The
 * holder checks its connection every `checkMs` with a deadline of `checkMs`, so it steps down (2 × checkMs) before
 * the server could hand the lock to another replica (idle + interval × count = 25 s).
 */
const SERVER_KEEPALIVES = ['SET tcp_keepalives_idle = 10', 'SET tcp_keepalives_interval = 5', 'SET tcp_keepalives_count = 3'];

export const DEFAULT_LEADER_TIMING: LeaderTiming = { retryMs: 5000, checkMs: 5000 };

/** A connection of its own for the lock, apart from the pool, with keepalives that notice a lost host. */
async function openLockConnection(knex: Knex, name: string, log: Logger): Promise<pg.Client> {
  const c = new pg.Client({ ...ownConnectionConfig(knex), application_name: name, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
  // A lost connection is noticed by the next step (its query fails); the listener keeps the error from throwing.
  c.on('error', (err) => log.warn({ err }, 'the connection of the worker-duties lock failed'));
  await c.connect();
  for (const set of SERVER_KEEPALIVES) await c.query(set);
  return c;
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(t));
}

/**
 * Holds `lockKey` (a session advisory lock) on a connection of its own, apart from the pool, and runs `lead` while it
 * holds it: every replica runs this, one leads. A replica that does not hold it asks again every `retryMs` on the
 * same connection. `lead` starts the duties and returns their stop, called when the lock (its connection) is lost and
 * at `stop()`; stopping the duties before the lock is given back keeps two replicas from running them at once.
 */
export function holdLeadership(deps: {
  knex: Knex;
  lockKey: number;
  name: string;
  log: Logger;
  lead: () => Promise<() => Promise<void>>;
  timing?: LeaderTiming;
}): { stop(): Promise<void>; holding(): boolean } {
  const { log, lockKey } = deps;
  const { retryMs, checkMs } = deps.timing ?? DEFAULT_LEADER_TIMING;
  let stopped = false;
  let client: pg.Client | undefined;
  let stopDuties: (() => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  async function stepDown(reason: unknown): Promise<void> {
    const stopping = stopDuties;
    stopDuties = undefined;
    if (stopping) {
      log.warn({ err: reason }, 'lost the worker-duties lock; this worker stops its duties');
      await stopping();
    }
    const c = client;
    client = undefined;
    // Ending the connection releases the lock if the server still thinks it is held.
    await c?.end().catch(() => undefined);
  }

  async function step(): Promise<void> {
    try {
      if (!client) client = await withDeadline(openLockConnection(deps.knex, deps.name, log), checkMs);
      if (stopDuties) {
        await withDeadline(client.query('SELECT 1'), checkMs);
        return;
      }
      const { rows } = await withDeadline(client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [lockKey]), checkMs);
      if (!rows[0]?.held || stopped) return;
      log.info({ lockKey }, 'this worker holds the worker-duties lock and runs the duties');
      stopDuties = await deps.lead();
    } catch (err) {
      await stepDown(err);
    }
  }

  const tick = () => {
    current = step().finally(() => {
      if (!stopped) timer = setTimeout(tick, stopDuties ? checkMs : retryMs);
    });
  };
  tick();
  return {
    holding: () => Boolean(stopDuties),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
      const stopping = stopDuties;
      stopDuties = undefined;
      await stopping?.();
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
