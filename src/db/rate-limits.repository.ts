import type { Db } from './types';

export interface BucketState {
  /** Whether this request took a token. */
  allowed: boolean;
  /** Tokens left after the decision (fractional: the bucket refills continuously). */
  tokens: number;
}

/** A bucket row's tokens refilled up to now, at most `burst`: the one refill rule of both statements below. */
const REFILLED = `least(:burst::float8, b.tokens + greatest(0, extract(epoch from statement_timestamp() - b.refilled_at)) * :rate::float8)`;

/**
 * One decision of a token bucket shared by every API replica, in one statement: the row is refilled for the time
 * since its last refill (at most to `burst`), and a token is taken when one is there. The upsert locks the row, so
 * concurrent decisions of one bucket queue on it, whichever replica makes them. The database's clock is the only
 * one used; `refilled_at` never moves back, so a decision that waited for the lock refills from the last one.
 */
export async function takeToken(db: Db, bucket: string, rate: number, burst: number): Promise<BucketState> {
  const level = REFILLED;
  const { rows } = await db.raw<{ rows: BucketState[] }>(
    `INSERT INTO rate_limit_buckets AS b (bucket, tokens, refilled_at, allowed)
     VALUES (:bucket, :burst::float8 - 1, statement_timestamp(), true)
     ON CONFLICT (bucket) DO UPDATE SET
       allowed = ${level} >= 1,
       tokens = ${level} - CASE WHEN ${level} >= 1 THEN 1 ELSE 0 END,
       refilled_at = greatest(b.refilled_at, statement_timestamp())
     RETURNING allowed, tokens`,
    { bucket, rate, burst },
  );
  return rows[0];
}

/** Tokens a bucket holds now (a bucket never used is full), without taking one or writing anything. */
export async function bucketLevel(db: Db, bucket: string, rate: number, burst: number): Promise<number> {
  const { rows } = await db.raw<{ rows: { tokens: number }[] }>(
    `SELECT ${REFILLED} AS tokens
     FROM rate_limit_buckets b WHERE b.bucket = :bucket`,
    { bucket, rate, burst },
  );
  return rows[0]?.tokens ?? burst;
}
