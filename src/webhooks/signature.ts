import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the key is the base64 part of a `whsec_` secret,
 * the signed content `<webhook-id>.<webhook-timestamp>.<body>`, the header `v1,<base64 HMAC-SHA256>`; several
 * signatures (during a secret rotation) are separated by spaces.
 */
const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function key(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one signature per secret in force. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(' ');
}

/**
 * What a receiver does: any `v1` signature matching the secret, compared in constant time, and a timestamp within
 * `toleranceSeconds` of now (replays of old deliveries are refused).
 */
export function verify(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  toleranceSeconds = 300,
  now = Date.now(),
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, headers.id, timestamp, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
