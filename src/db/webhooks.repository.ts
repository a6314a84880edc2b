import type { EventType } from '../shapes';
import { uuidv7 } from '../ids';
import { Db, iso, table } from './types';
import { paginate } from './pagination';
import { mapPage, PageRequest, Page } from '../paging';

const endpoints = (db: Db) => table<EndpointRow>(db, 'webhook_endpoints');
const events = (db: Db) => table<EventRow>(db, 'webhook_events');
const deliveries = (db: Db) => table<DeliveryRow>(db, 'webhook_deliveries');

export type EndpointStatus = 'active' | 'disabled' | 'failing';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface EndpointFilter {
  domain_id?: string;
  model_id?: string;
}

export interface EndpointRow {
  webhook_id: string;
  client_id: string | null;
  url: string;
  description: string;
  event_types: EventType[];
  filter: EndpointFilter;
  status: EndpointStatus;
  /** Sealed (src/secrets/secret-box.ts): the database never holds a signing secret in plain text. */
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface EventRow {
  event_id: string;
  seq: number;
  type: string;
  client_id: string | null;
  domain_id: string | null;
  model_id: string | null;
  ordering_key: string;
  data: Record<string, unknown>;
  occurred_at: Date;
  dispatched_at: Date | null;
  target_webhook_id: string | null;
}

export interface DeliveryRow {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_seq: number;
  ordering_key: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  queued_at: Date;
  last_attempt_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/** The endpoint as callers see it: never its secrets. */
export function toWebhook(row: EndpointRow) {
  return {
    webhook_id: row.webhook_id,
    client_id: row.client_id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    filter: row.filter,
    status: row.status,
    failing_since: iso(row.failing_since),
    previous_secret_expires_at: iso(row.previous_secret_expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toDelivery(row: DeliveryRow & { event_type: string }, attempts: AttemptRow[]) {
  return {
    delivery_id: row.delivery_id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_latency_ms: row.last_latency_ms,
    last_error: row.last_error,
    next_attempt_at: iso(row.next_attempt_at),
    completed_at: iso(row.completed_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: iso(a.attempted_at),
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
    })),
  };
}

// --- endpoints

export type NewEndpoint = Pick<EndpointRow, 'client_id' | 'url' | 'description' | 'event_types' | 'filter' | 'secret_sealed'> & {
  status?: EndpointStatus;
};

export async function insertEndpoint(db: Db, e: NewEndpoint): Promise<EndpointRow> {
  const [row] = await endpoints(db)
    .insert({ ...e, webhook_id: uuidv7(), filter: JSON.stringify(e.filter) })
    .returning('*');
  return row;
}

export async function findEndpoint(db: Db, webhookId: string, lock = false): Promise<EndpointRow | undefined> {
  const q = endpoints(db).where({ webhook_id: webhookId });
  if (lock) q.forUpdate();
  return q.first();
}

/** `clientId` null lists the platform-wide endpoints. */
export async function listEndpoints(db: Db, clientId: string | null, page: PageRequest, status?: string): Promise<Page<EndpointRow>> {
  const q = clientId === null ? endpoints(db).whereNull('client_id') : endpoints(db).where({ client_id: clientId });
  if (status) q.where('status', status);
  return paginate<EndpointRow>(q, page, 'webhook_id', 'webhook_endpoints');
}

export async function updateEndpoint(
  db: Db,
  webhookId: string,
  changes: Partial<
    Pick<
      EndpointRow,
      | 'url'
      | 'description'
      | 'event_types'
      | 'filter'
      | 'status'
      | 'secret_sealed'
      | 'previous_secret_sealed'
      | 'previous_secret_expires_at'
      | 'failing_since'
    >
  >,
): Promise<EndpointRow> {
  const values: Record<string, unknown> = { ...changes, updated_at: db.fn.now() };
  if (changes.filter) values.filter = JSON.stringify(changes.filter);
  const [row] = await endpoints(db).where({ webhook_id: webhookId }).update(values).returning('*');
  return row;
}

export async function deleteEndpoint(db: Db, webhookId: string): Promise<void> {
  await endpoints(db).where({ webhook_id: webhookId }).delete();
}

/** The secrets a delivery is signed with now, sealed: the current one, and the previous one during its grace period. */
export function sealedSigningSecrets(row: EndpointRow, now = new Date()): string[] {
  const previous =
    row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > now
      ? [row.previous_secret_sealed]
      : [];
  return [row.secret_sealed, ...previous];
}

// --- the outbox

/** Undispatched events, oldest first, locked so that two dispatchers never fan out the same rows at once. */
export async function claimUndispatched(db: Db, limit: number): Promise<EventRow[]> {
  return events(db).whereNull('dispatched_at').orderBy('seq').limit(limit).forUpdate().skipLocked();
}

/** Endpoints an event goes to: its tenant's and the platform-wide ones that ask for its type and pass the filter. */
export async function endpointsFor(db: Db, event: EventRow): Promise<EndpointRow[]> {
  return (
    endpoints(db)
      .whereNot({ status: 'disabled' })
      // An endpoint created after the change did not ask for it.
      .where('created_at', '<=', event.occurred_at)
      .where((q) => {
        q.whereNull('client_id');
        if (event.client_id) q.orWhere({ client_id: event.client_id });
      })
      .whereRaw('? = ANY(event_types)', [event.type])
      .whereRaw("(filter->>'domain_id' IS NULL OR filter->>'domain_id' = ?)", [event.domain_id ?? ''])
      .whereRaw("(filter->>'model_id' IS NULL OR filter->>'model_id' = ?)", [event.model_id ?? ''])
  );
}

export async function markDispatched(db: Db, eventIds: string[]): Promise<void> {
  if (eventIds.length) await events(db).whereIn('event_id', eventIds).update({ dispatched_at: db.fn.now() });
}

export async function findEvent(db: Db, eventId: string): Promise<EventRow | undefined> {
  return events(db).where({ event_id: eventId }).first();
}

// --- deliveries

/** One delivery per (endpoint, event); rows that exist already are left alone. Returns the new ones. */
export async function insertDeliveries(db: Db, event: EventRow, webhookIds: string[]): Promise<DeliveryRow[]> {
  if (!webhookIds.length) return [];
  return deliveries(db)
    .insert(
      webhookIds.map((webhook_id) => ({
        delivery_id: uuidv7(),
        webhook_id,
        event_id: event.event_id,
        event_seq: event.seq,
        ordering_key: event.ordering_key,
      })),
    )
    .onConflict(['webhook_id', 'event_id'])
    .ignore()
    .returning('*');
}

const withType = (db: Db) =>
  deliveries(db)
    .join('webhook_events', 'webhook_events.event_id', 'webhook_deliveries.event_id')
    .select<(DeliveryRow & { event_type: string })[]>('webhook_deliveries.*', 'webhook_events.type as event_type');

export async function findDelivery(db: Db, deliveryId: string): Promise<(DeliveryRow & { event_type: string }) | undefined> {
  return withType(db).where('webhook_deliveries.delivery_id', deliveryId).first();
}

export async function listDeliveries(db: Db, webhookId: string, page: PageRequest, status?: string) {
  const q = withType(db).where('webhook_deliveries.webhook_id', webhookId);
  if (status) q.where('webhook_deliveries.status', status);
  return paginate<DeliveryRow & { event_type: string }>(q, page, 'delivery_id', 'webhook_deliveries');
}

export async function attemptsOf(db: Db, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const rows: AttemptRow[] = deliveryIds.length
    ? await db<AttemptRow>('webhook_delivery_attempts').whereIn('delivery_id', deliveryIds).orderBy(['delivery_id', 'attempt'])
    : [];
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const r of rows) byDelivery.set(r.delivery_id, [...(byDelivery.get(r.delivery_id) ?? []), r]);
  return byDelivery;
}

/** A page of deliveries with their attempt logs (one query for all the logs). */
export async function deliveryPage(db: Db, webhookId: string, page: PageRequest, status?: string) {
  const rows = await listDeliveries(db, webhookId, page, status);
  const logs = await attemptsOf(
    db,
    rows.items.map((r) => r.delivery_id),
  );
  return mapPage(rows, (r) => toDelivery(r, logs.get(r.delivery_id) ?? []));
}

/** The next delivery of an (endpoint, ordering key) queue: the oldest pending one by event order. */
export async function nextPending(db: Db, webhookId: string, orderingKey: string): Promise<string | undefined> {
  const row = await deliveries(db)
    .where({ webhook_id: webhookId, ordering_key: orderingKey, status: 'pending' })
    .orderBy(['event_seq', 'created_at'])
    .first('delivery_id');
  return row?.delivery_id;
}

/** Counts an attempt before it is made, so a crash mid-request still shows in the log count. */
export async function beginAttempt(db: Db, deliveryId: string): Promise<number> {
  const [row] = await deliveries(db)
    .where({ delivery_id: deliveryId, status: 'pending' })
    .update({ attempts: db.raw('attempts + 1'), last_attempt_at: db.fn.now(), updated_at: db.fn.now() })
    .returning('attempts');
  return row?.attempts ?? 0;
}

export async function recordAttempt(
  db: Db,
  deliveryId: string,
  attempt: AttemptRow,
  outcome: { status: DeliveryStatus; nextAttemptAt: Date | null },
): Promise<void> {
  await db('webhook_delivery_attempts').insert(attempt);
  await deliveries(db)
    .where({ delivery_id: deliveryId })
    .update({
      status: outcome.status,
      last_status_code: attempt.status_code,
      last_latency_ms: attempt.latency_ms,
      last_error: attempt.error,
      next_attempt_at: outcome.nextAttemptAt,
      completed_at: outcome.status === 'pending' ? null : db.fn.now(),
      updated_at: db.fn.now(),
    });
}

/** Retries ran out (or the target was refused): the delivery fails and its endpoint is marked failing. */
export async function giveUp(db: Db, deliveryId: string, reason: string): Promise<void> {
  const [row] = await deliveries(db)
    .where({ delivery_id: deliveryId, status: 'pending' })
    .update({ status: 'failed', last_error: reason, next_attempt_at: null, completed_at: db.fn.now(), updated_at: db.fn.now() })
    .returning('webhook_id');
  if (row) {
    await endpoints(db)
      .where({ webhook_id: row.webhook_id, status: 'active' })
      .update({ status: 'failing', failing_since: db.fn.now(), updated_at: db.fn.now() });
  }
}

/** A delivery that succeeds clears its endpoint's failing status. */
export async function endpointRecovered(db: Db, webhookId: string): Promise<void> {
  await endpoints(db)
    .where({ webhook_id: webhookId, status: 'failing' })
    .update({ status: 'active', failing_since: null, updated_at: db.fn.now() });
}

/** Puts a finished delivery back in its queue (same event, same event id). */
export async function requeue(db: Db, deliveryId: string): Promise<boolean> {
  const n = await deliveries(db)
    .where({ delivery_id: deliveryId })
    .whereNot({ status: 'pending' })
    .update({ status: 'pending', next_attempt_at: null, completed_at: null, queued_at: db.fn.now(), updated_at: db.fn.now() });
  return n > 0;
}

/**
 * Queues whose head (the delivery their workflow would send next) was queued over `olderThanSeconds` ago and has
 * had no attempt since: their workflow start was lost, or the run ended just before the delivery was added.
 * Queues whose head is being retried are not returned, so a long backoff costs nothing here.
 */
export async function strandedQueues(
  db: Db,
  olderThanSeconds: number,
  limit = 100,
): Promise<{ webhook_id: string; ordering_key: string }[]> {
  const { rows } = await db.raw<{ rows: { webhook_id: string; ordering_key: string }[] }>(
    `
    SELECT webhook_id, ordering_key FROM (
      SELECT DISTINCT ON (webhook_id, ordering_key) webhook_id, ordering_key, queued_at, last_attempt_at
      FROM webhook_deliveries WHERE status = 'pending'
      ORDER BY webhook_id, ordering_key, event_seq, created_at
    ) head
    WHERE queued_at < now() - make_interval(secs => ?) AND (last_attempt_at IS NULL OR last_attempt_at < queued_at)
    LIMIT ?`,
    [olderThanSeconds, limit],
  );
  return rows;
}
