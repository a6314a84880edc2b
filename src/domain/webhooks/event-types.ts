export { EVENT_TYPES, type EventType } from '../../shapes';
import type { EventType } from '../../shapes';

/**
 * Events of the global model registry: they belong to no tenant, so only platform-wide endpoints receive them
 * (tenant callers cannot read the registry routes either).
 */
export const REGISTRY_EVENT_TYPES: readonly EventType[] = [
  'version.status_changed',
  'version.deleted',
  'model.deleted',
  'alias.moved',
  'subscription.stale',
];

/** The event of a test ping: sent to the pinged endpoint only, whatever its event types. */
export const PING_EVENT_TYPE = 'webhook.test';

/** The event a job's final status is announced with. */
export function jobEventType(status: string): EventType | undefined {
  return (
    { success: 'job.succeeded', failure: 'job.failed', timed_out: 'job.timed_out', cancelled: 'job.cancelled' } as Record<string, EventType>
  )[status];
}
