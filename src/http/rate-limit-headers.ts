import type { Context } from 'koa';
import type { LimitDecision } from '../errors';

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers, structured-field lists), one member per policy
 * the request was counted against (`requests`, then `jobs`): the policy as a quota `q` over a window `w` (a token
 * bucket of `burst` refilled at `rate` per second refills whole in burst/rate seconds), and the state after this
 * request: `r` tokens left, `t` seconds until the next token when none is left, else until the bucket is full.
 */
export function setRateLimitHeaders(ctx: Context, d: LimitDecision): void {
  const append = (name: string, member: string) => {
    const current = ctx.response.get(name);
    ctx.set(name, current ? `${current}, ${member}` : member);
  };
  append('RateLimit-Policy', `"${d.policy}";q=${d.burst};w=${Math.max(1, Math.ceil(d.burst / d.rate))}`);
  append('RateLimit', `"${d.policy}";r=${d.remaining};t=${d.resetSeconds}`);
}
