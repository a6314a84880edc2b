import type { DomainOwner, OutboxEvent, OutboxStore } from '../domain/ports';
import { Db, table } from './types';
import { findJob } from './jobs.repository';
import { findServiceByUuid } from './services.repository';
import { findVersion } from './models.repository';
import { findSubscription } from './subscriptions.repository';

const events = (db: Db) => table<OutboxEvent>(db, 'webhook_events');

/** Several events in one statement, in the order given (the table's `seq` follows it). */
export async function appendEvents(db: Db, rows: OutboxEvent[]): Promise<void> {
  if (rows.length === 0) return;
  await events(db).insert(rows.map((row) => ({ ...row, data: JSON.stringify(row.data) })));
}

export async function domainOwner(db: Db, domainUuid: string): Promise<DomainOwner | undefined> {
  return table<DomainOwner & { domain_uuid: string }>(db, 'domains').where({ domain_uuid: domainUuid }).first('client_id', 'domain_id');
}

/** The Postgres outbox store (src/domain/ports/outbox-store.port.ts `OutboxStore`) on this connection or transaction. */
export function outboxStore(db: Db): OutboxStore {
  return {
    append: (rows) => appendEvents(db, rows),
    domainOwner: (domainUuid) => domainOwner(db, domainUuid),
    findJob: (jobId) => findJob(db, jobId),
    findService: (serviceUuid) => findServiceByUuid(db, serviceUuid),
    findVersion: (modelId, version) => findVersion(db, modelId, version),
    findSubscription: (subscriptionId) => findSubscription(db, subscriptionId),
  };
}
