import type { JobView } from '../jobs';
import type { SubscriptionRow, VersionRow } from '../models';
import type { ServiceRow } from '../services';

/** An event as the outbox keeps it until the dispatcher turns it into deliveries. */
export interface OutboxEvent {
  /** uuidv7: events of one transaction keep the order they were written in. */
  event_id: string;
  type: string;
  client_id: string | null;
  domain_id: string | null;
  model_id: string | null;
  /** Events with the same key reach an endpoint in the order they were written. */
  ordering_key: string;
  data: Record<string, unknown>;
  /** The one endpoint a test ping goes to; null for an event every matching endpoint receives. */
  target_webhook_id: string | null;
}

/** The tenant and public id of a domain, as its events name them. */
export interface DomainOwner {
  client_id: string;
  domain_id: string;
}

/**
 * What the webhook outbox (src/domain/webhooks/outbox.ts) writes and reads, on one connection or transaction: the
 * store of a transaction appends in that transaction, so an event commits exactly when the change it announces does.
 * `outboxStore(db)` in src/db/outbox.repository.ts is the Postgres one, `MemoryOutboxStore` (src/db/memory/) the
 * in-memory one.
 */
export interface OutboxStore {
  /** Appends the events in the order given. */
  append(events: OutboxEvent[]): Promise<void>;
  domainOwner(domainUuid: string): Promise<DomainOwner | undefined>;
  findJob(jobId: string): Promise<JobView | undefined>;
  findService(serviceUuid: string): Promise<ServiceRow | undefined>;
  findVersion(modelId: string, version: string): Promise<VersionRow | undefined>;
  findSubscription(subscriptionId: string): Promise<SubscriptionRow | undefined>;
}
