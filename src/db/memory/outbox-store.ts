import type { DomainOwner, OutboxEvent, OutboxStore } from '../../domain/ports';
import type { JobView } from '../../domain/jobs';
import type { SubscriptionRow, VersionRow } from '../../domain/models';
import type { ServiceRow } from '../../domain/services';

/**
 * The outbox in arrays and maps (src/domain/ports/outbox-store.port.ts; Postgres: ../outbox.repository.ts): `events`
 * holds what was appended, in order; the maps hold what the outbox looks up. It has no transaction: a test of "no
 * event without its change" belongs with the Postgres store.
 */
export class MemoryOutboxStore implements OutboxStore {
  readonly events: OutboxEvent[] = [];
  readonly domains = new Map<string, DomainOwner>();
  readonly jobs = new Map<string, JobView>();
  readonly services = new Map<string, ServiceRow>();
  /** By `${model_id}@${version}`. */
  readonly versions = new Map<string, VersionRow>();
  readonly subscriptions = new Map<string, SubscriptionRow>();

  async append(events: OutboxEvent[]): Promise<void> {
    // Copies, as a stored row is: a later change of the caller's object does not reach it.
    this.events.push(...events.map((e) => structuredClone(e)));
  }

  async domainOwner(domainUuid: string): Promise<DomainOwner | undefined> {
    return this.domains.get(domainUuid);
  }

  async findJob(jobId: string): Promise<JobView | undefined> {
    return this.jobs.get(jobId);
  }

  async findService(serviceUuid: string): Promise<ServiceRow | undefined> {
    return this.services.get(serviceUuid);
  }

  async findVersion(modelId: string, version: string): Promise<VersionRow | undefined> {
    return this.versions.get(`${modelId}@${version}`);
  }

  async findSubscription(subscriptionId: string): Promise<SubscriptionRow | undefined> {
    return this.subscriptions.get(subscriptionId);
  }
}
