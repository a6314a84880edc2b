import type { WebhookRetrySchedule } from '../../workflows/webhook-definitions';

export type { WebhookRetrySchedule };
import { BlockList, isIP } from 'node:net';
import { commaSeparated, integer, type Env } from '../env-values';

/** Outbound webhook settings (docs/webhooks.md). */
export interface WebhookConfig {
  /** `http://` targets are accepted (development only); otherwise `https://` is required. */
  allowHttp: boolean;
  /** Loopback, private and link-local targets inside these ranges are allowed (e.g. `127.0.0.1/32` in tests). */
  allowedPrivateRanges: string[];
  retry: WebhookRetrySchedule;
  /** A request that has not answered within this is a failed attempt. */
  attemptTimeoutSeconds: number;
  /** After a secret rotation, the old secret keeps signing (next to the new one) this long. */
  secretGraceSeconds: number;
  /** Whether this worker process runs the outbox dispatcher (WEBHOOK_DISPATCHER=off turns it off, e.g. in tests). */
  dispatcherEnabled: boolean;
  /** How often the worker turns outbox rows into deliveries. */
  dispatchIntervalMs: number;
  /** A pending delivery with no attempt this long after it was queued has lost its workflow start; it is launched again. */
  relaunchAfterSeconds: number;
}

/** `a.b.c.d/n`, `a:b::/n` or a bare address (a range of one). */
export function parseRanges(raw: string | undefined): string[] {
  const ranges = commaSeparated(raw);
  for (const range of ranges) {
    const [address, prefix] = range.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (!family || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
      throw new Error(`WEBHOOK_ALLOWED_PRIVATE_RANGES must list addresses or CIDR ranges, got "${range}"`);
    }
  }
  return ranges;
}

export function webhookConfig(env: Env): WebhookConfig {
  return {
    allowHttp: env.WEBHOOK_ALLOW_HTTP === 'true',
    allowedPrivateRanges: parseRanges(env.WEBHOOK_ALLOWED_PRIVATE_RANGES),
    retry: {
      initialIntervalMs: integer(env, 'WEBHOOK_RETRY_INITIAL_MS', 10_000, 1),
      backoffCoefficient: 2,
      maximumIntervalSeconds: integer(env, 'WEBHOOK_RETRY_MAX_INTERVAL_SECONDS', 3600, 1),
      giveUpAfterSeconds: integer(env, 'WEBHOOK_GIVE_UP_SECONDS', 24 * 3600, 1),
    },
    attemptTimeoutSeconds: integer(env, 'WEBHOOK_ATTEMPT_TIMEOUT_SECONDS', 10, 1),
    secretGraceSeconds: integer(env, 'WEBHOOK_SECRET_GRACE_SECONDS', 24 * 3600, 0),
    dispatcherEnabled: env.WEBHOOK_DISPATCHER !== 'off',
    dispatchIntervalMs: integer(env, 'WEBHOOK_DISPATCH_INTERVAL_MS', 1000, 10),
    relaunchAfterSeconds: integer(env, 'WEBHOOK_RELAUNCH_AFTER_SECONDS', 30, 1),
  };
}

/** The allow-list as a BlockList, for address checks. */
export function allowList(ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(address, prefix === undefined ? (type === 'ipv6' ? 128 : 32) : Number(prefix), type);
  }
  return list;
}
