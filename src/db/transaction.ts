import type { Knex } from 'knex';
import { classifyFailure } from '../failure-classes';

/** Deadlock and serialization victims are re-run this many times before the caller sees a 503. */
export const CONTENTION_ATTEMPTS = 5;

/**
 * Runs `work` in a transaction, re-running it when Postgres picks it as a deadlock or serialization victim
 * (40P01, 40001): the transaction was rolled back whole, so running it again is safe, and the next run
 * usually finds the winner's rows (an idempotent repeat then answers as a repeat).
 */
export async function inTransaction<T>(
  knex: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  attempts = CONTENTION_ATTEMPTS,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await knex.transaction(work);
    } catch (err) {
      if (attempt >= attempts || classifyFailure(err).kind !== 'contention') throw err;
      // Jittered, growing pause so the victims do not collide again in step.
      await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
    }
  }
}
