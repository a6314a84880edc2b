import type { Knex } from 'knex';
import { uuidv7 } from '../../ids';
import type { AssignmentRow, Scope } from '../assignments';
import type { JobView } from '../jobs';
import type { ModelRow, VersionRow } from '../models';
import type { ServiceRow } from '../services';
import { toAssignment, toJob, toModel, toService, toSubscription, toVersion } from '../common';
import { workflowIdFor, type OutboxEvent, type OutboxStore } from '../ports';
import { jobEventType, EventType, PING_EVENT_TYPE } from './event-types';

/**
 * The outbox: an event is a row written by the transaction that makes the change it announces, so it exists
 * exactly when the change committed. The worker's dispatcher turns the rows into deliveries afterwards
 * (src/temporal/webhook-dispatcher.ts). Each method of `outboxEvents` is the one call a state change makes; the
 * rows go to an `OutboxStore` (src/domain/ports/outbox-store.port.ts) on the change's transaction.
 */

/** Larger `data` is cut to its scalar fields plus `truncated: true`; receivers then read the resource from the API. */
export const MAX_EVENT_DATA_BYTES = 256 * 1024;

export interface NewEvent {
  type: EventType | typeof PING_EVENT_TYPE;
  client_id: string | null;
  domain_id?: string | null;
  model_id?: string | null;
  /** Events with the same key reach an endpoint in the order they were written. */
  ordering_key: string;
  data: Record<string, unknown>;
  target_webhook_id?: string;
}

function bounded(data: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(data)) <= MAX_EVENT_DATA_BYTES) return data;
  return { ...Object.fromEntries(Object.entries(data).filter(([, v]) => v === null || typeof v !== 'object')), truncated: true };
}

/** The outbox's row of an event: its id (uuidv7, in the order of the events given) and its data within the bound. */
function outboxRow(event: NewEvent): OutboxEvent {
  return {
    event_id: uuidv7(),
    type: event.type,
    client_id: event.client_id,
    domain_id: event.domain_id ?? null,
    model_id: event.model_id ?? null,
    ordering_key: event.ordering_key,
    data: bounded(event.data),
    target_webhook_id: event.target_webhook_id ?? null,
  };
}

/** job.succeeded / failed / timed_out / cancelled of a final job (none for another status): the job as GET /v2/jobs/{job_id} shows it. */
export function jobFinishedEvent(job: JobView): NewEvent | undefined {
  const type = jobEventType(job.status);
  if (!type) return undefined;
  return {
    type,
    client_id: job.client_id,
    domain_id: job.domain_id,
    model_id: job.model_id,
    ordering_key: `job:${job.job_id}`,
    // temporal_url depends on the sender's TEMPORAL_UI_URL; it is filled in when the body is rendered.
    data: toJob(job, { workflowId: workflowIdFor, uiUrl: () => null }),
  };
}

/** service.available / service.failed of the updated row (none for another status). `modelId`: the model whose job moved it. */
export function serviceStatusEvent(
  service: ServiceRow,
  domain: { client_id: string; domain_id: string },
  modelId?: string,
): NewEvent | undefined {
  if (service.status !== 'available' && service.status !== 'failed') return undefined;
  return {
    type: `service.${service.status}`,
    client_id: domain.client_id,
    domain_id: domain.domain_id,
    model_id: modelId ?? null,
    ordering_key: `service:${service.service_uuid}`,
    data: { client_id: domain.client_id, ...toService(service, domain.domain_id) },
  };
}

/** The events of the changes, written to `store` (the store of the transaction that makes them). */
export function outboxEvents(store: OutboxStore) {
  /** Several events in one append, in the order given (their ids, uuidv7, follow it); answers their ids. */
  async function recordAll(events: NewEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const rows = events.map(outboxRow);
    await store.append(rows);
    return rows.map((r) => r.event_id);
  }

  async function record(event: NewEvent): Promise<string> {
    return (await recordAll([event]))[0];
  }

  /** An event of an assignment revision: one ordering key per assignment key, so a change and its rollback arrive in order. */
  async function recordAssignmentEvent(
    type: 'assignment.changed' | 'assignment.rolled_back',
    row: AssignmentRow,
    data: (clientId: string) => Record<string, unknown>,
  ): Promise<void> {
    const domain = (await store.domainOwner(row.domain_uuid))!;
    await record({
      type,
      client_id: domain.client_id,
      domain_id: domain.domain_id,
      model_id: row.model_id,
      ordering_key: `assignment:${row.domain_uuid}:${row.service_uuid ?? '-'}:${row.assignment_key}`,
      data: data(domain.client_id),
    });
  }

  return {
    record,
    recordAll,

    /** job.succeeded / failed / timed_out: the job as GET /v2/jobs/{job_id} shows it. */
    async jobFinished(jobOrId: string | JobView): Promise<void> {
      const job = typeof jobOrId === 'string' ? await store.findJob(jobOrId) : jobOrId;
      const event = job && jobFinishedEvent(job);
      if (event) await record(event);
    },

    /** service.available / service.failed; other statuses announce nothing. `modelId`: the model whose job moved it. */
    async serviceStatusChanged(serviceUuid: string, modelId?: string): Promise<void> {
      const service = await store.findService(serviceUuid);
      if (service?.status !== 'available' && service?.status !== 'failed') return;
      const event = serviceStatusEvent(service, (await store.domainOwner(service.domain_uuid))!, modelId);
      if (event) await record(event);
    },

    /** assignment.changed: the new revision (an upsert archives the previous one in the same transaction). */
    async assignmentChanged(row: AssignmentRow, scope: Scope): Promise<void> {
      await recordAssignmentEvent('assignment.changed', row, (clientId) => ({ client_id: clientId, ...toAssignment(row, scope) }));
    },

    /**
     * assignment.rolled_back: a canary or shadow taken out of force by a rollback, by hand or by the guardrail
     * (`automatic`), with the reason and, for the guardrail, the canary's counts that tripped it.
     */
    async assignmentRolledBack(
      row: AssignmentRow,
      scope: Scope,
      why: { reason: string; automatic: boolean; canary?: object },
    ): Promise<void> {
      await recordAssignmentEvent('assignment.rolled_back', row, (clientId) => ({
        client_id: clientId,
        assignment: toAssignment(row, scope),
        ...why,
      }));
    },

    /** version.status_changed: a registry event (platform-wide endpoints only). */
    async versionStatusChanged(modelId: string, version: string): Promise<void> {
      const row = await store.findVersion(modelId, version);
      if (!row) return;
      await record({
        type: 'version.status_changed',
        client_id: null,
        model_id: modelId,
        ordering_key: `version:${modelId}@${version}`,
        data: toVersion(row),
      });
    },

    /** version.deleted: the version as it was, a registry event. */
    async versionDeleted(row: VersionRow): Promise<void> {
      await record({
        type: 'version.deleted',
        client_id: null,
        model_id: row.model_id,
        ordering_key: `version:${row.model_id}@${row.version}`,
        data: toVersion(row),
      });
    },

    /** model.deleted: the model as it was, a registry event. */
    async modelDeleted(row: ModelRow): Promise<void> {
      await record({ type: 'model.deleted', client_id: null, model_id: row.id, ordering_key: `model:${row.id}`, data: toModel(row) });
    },

    /** alias.moved: an alias created, moved (`previous_version` set) or deleted (`version` null), a registry event. */
    async aliasMoved(alias: { model_id: string; alias: string; version: string | null }, previousVersion: string | null): Promise<void> {
      await record({
        type: 'alias.moved',
        client_id: null,
        model_id: alias.model_id,
        ordering_key: `alias:${alias.model_id}#${alias.alias}`,
        data: { ...alias, previous_version: previousVersion },
      });
    },

    /** subscription.stale, one per subscription an update of a model made stale (registry events). */
    async subscriptionsStale(subscriptionIds: string[]): Promise<void> {
      for (const id of subscriptionIds) {
        const row = await store.findSubscription(id);
        if (!row) continue;
        await record({
          type: 'subscription.stale',
          client_id: null,
          model_id: row.source_model_id,
          ordering_key: `subscription:${id}`,
          data: toSubscription(row),
        });
      }
    },
  };
}

export type OutboxEvents = ReturnType<typeof outboxEvents>;

/**
 * The outbox the services are given: its events on a connection or transaction, `outbox(trx).versionStatusChanged(...)`,
 * so that they commit with the change. The composition builds it over the Postgres store (`outboxStore` of src/db).
 */
export type Outbox = (db: Knex) => OutboxEvents;

export function createOutbox(storeOn: (db: Knex) => OutboxStore): Outbox {
  return (db) => outboxEvents(storeOn(db));
}
