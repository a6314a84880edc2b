import type { Query } from '@tanstack/react-query';

const FIRST_MS = 2_000;
const MAX_MS = 30_000;

// Per query: the data last seen and since when it has not changed (structural sharing keeps the same object when an
// answer equals the last one, so identity tells a change).
const still = new WeakMap<Query, { data: unknown; since: number }>();

/**
 * How long until a query on screen is read again: every 2 s while its answer moves, backing off to half the time it
 * has stood still (at most 30 s), and 30 s after an error so an outage is not hammered. TanStack Query stops the
 * timers while the tab is hidden (`refetchIntervalInBackground` off) and reads again when it is shown.
 */
export function refreshInterval(query: Query): number {
  if (query.state.status === 'error') return MAX_MS;
  const now = Date.now();
  const seen = still.get(query);
  if (!seen || seen.data !== query.state.data) {
    still.set(query, { data: query.state.data, since: now });
    return FIRST_MS;
  }
  return Math.min(MAX_MS, Math.max(FIRST_MS, (now - seen.since) / 2));
}
