import type { Db } from '../../db/types';
import { uuidv7 } from '../../ids';
import * as jobs from '../../db/jobs.repository';
import * as services from '../../db/services.repository';
import * as models from '../../db/models.repository';
import * as subscriptions from '../../db/subscriptions.repository';
import type { AssignmentRow, Scope } from '../../db/assignments.repository';
import { toAssignment, toJob, toModel, toService, toSubscription, toVersion } from '../common';
import { workflowIdFor } from '../ports';
import { jobEventType, EventType, PING_EVENT_TYPE } from './event-types';

/**
 * The outbox: an event is a row written by the transaction that makes the change it announces, so it exists
 * exactly when the change committed. The worker's dispatcher turns the rows into deliveries afterwards
 * (src/temporal/webhook-dispatcher.ts). Each function below is the one call a state change makes.
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

export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  return (await recordEvents(db, [event]))[0];
}

/** Several events in one statement, in the order given (their ids, uuidv7, follow it); answers their ids. */
export async function recordEvents(db: Db, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    event_id: uuidv7(),
    type: event.type,
    client_id: event.client_id,
    domain_id: event.domain_id ?? null,
    model_id: event.model_id ?? null,
    ordering_key: event.ordering_key,
    data: JSON.stringify(bounded(event.data)),
    target_webhook_id: event.target_webhook_id ?? null,
  }));
  await db('webhook_events').insert(rows);
  return rows.map((r) => r.event_id);
}

async function domainOf(db: Db, domainUuid: string): Promise<{ client_id: string; domain_id: string }> {
  return db('domains').where({ domain_uuid: domainUuid }).first('client_id', 'domain_id');
}

/** An event of an assignment revision: one ordering key per assignment key, so a change and its rollback arrive in order. */
async function recordAssignmentEvent(
  db: Db,
  type: 'assignment.changed' | 'assignment.rolled_back',
  row: AssignmentRow,
  data: (clientId: string) => Record<string, unknown>,
): Promise<void> {
  const domain = await domainOf(db, row.domain_uuid);
  await recordEvent(db, {
    type,
    client_id: domain.client_id,
    domain_id: domain.domain_id,
    model_id: row.model_id,
    ordering_key: `assignment:${row.domain_uuid}:${row.service_uuid ?? '-'}:${row.assignment_key}`,
    data: data(domain.client_id),
  });
}

/** job.succeeded / failed / timed_out / cancelled of a final job (none for another status): the job as GET /v2/jobs/{job_id} shows it. */
export function jobFinishedEvent(job: jobs.JobView): NewEvent | undefined {
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
  service: services.ServiceRow,
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

export const webhookEvents = {
  /** job.succeeded / failed / timed_out: the job as GET /v2/jobs/{job_id} shows it. */
  async jobFinished(db: Db, jobOrId: string | jobs.JobView): Promise<void> {
    const job = typeof jobOrId === 'string' ? await jobs.findJob(db, jobOrId) : jobOrId;
    const event = job && jobFinishedEvent(job);
    if (event) await recordEvent(db, event);
  },

  /** service.available / service.failed; other statuses announce nothing. `modelId`: the model whose job moved it. */
  async serviceStatusChanged(db: Db, serviceUuid: string, modelId?: string): Promise<void> {
    const service = await services.findServiceByUuid(db, serviceUuid);
    if (service?.status !== 'available' && service?.status !== 'failed') return;
    await webhookEvents.serviceStatusSet(db, service, await domainOf(db, service.domain_uuid), modelId);
  },

  /** The same, for a caller that holds the updated row and its domain's ids already. */
  async serviceStatusSet(
    db: Db,
    service: services.ServiceRow,
    domain: { client_id: string; domain_id: string },
    modelId?: string,
  ): Promise<void> {
    const event = serviceStatusEvent(service, domain, modelId);
    if (event) await recordEvent(db, event);
  },

  /** assignment.changed: the new revision (an upsert archives the previous one in the same transaction). */
  async assignmentChanged(db: Db, row: AssignmentRow, scope: Scope): Promise<void> {
    await recordAssignmentEvent(db, 'assignment.changed', row, (clientId) => ({ client_id: clientId, ...toAssignment(row, scope) }));
  },

  /**
   * assignment.rolled_back: a canary or shadow taken out of force by a rollback, by hand or by the guardrail
   * (`automatic`), with the reason and, for the guardrail, the canary's counts that tripped it.
   */
  async assignmentRolledBack(
    db: Db,
    row: AssignmentRow,
    scope: Scope,
    why: { reason: string; automatic: boolean; canary?: object },
  ): Promise<void> {
    await recordAssignmentEvent(db, 'assignment.rolled_back', row, (clientId) => ({
      client_id: clientId,
      assignment: toAssignment(row, scope),
      ...why,
    }));
  },

  /** version.status_changed: a registry event (platform-wide endpoints only). */
  async versionStatusChanged(db: Db, modelId: string, version: string): Promise<void> {
    const row = await models.findVersion(db, modelId, version);
    if (!row) return;
    await recordEvent(db, {
      type: 'version.status_changed',
      client_id: null,
      model_id: modelId,
      ordering_key: `version:${modelId}@${version}`,
      data: toVersion(row),
    });
  },

  /** version.deleted: the version as it was, a registry event. */
  async versionDeleted(db: Db, row: models.VersionRow): Promise<void> {
    await recordEvent(db, {
      type: 'version.deleted',
      client_id: null,
      model_id: row.model_id,
      ordering_key: `version:${row.model_id}@${row.version}`,
      data: toVersion(row),
    });
  },

  /** model.deleted: the model as it was, a registry event. */
  async modelDeleted(db: Db, row: models.ModelRow): Promise<void> {
    await recordEvent(db, {
      type: 'model.deleted',
      client_id: null,
      model_id: row.id,
      ordering_key: `model:${row.id}`,
      data: toModel(row),
    });
  },

  /** alias.moved: an alias created, moved (`previous_version` set) or deleted (`version` null), a registry event. */
  async aliasMoved(
    db: Db,
    alias: { model_id: string; alias: string; version: string | null },
    previousVersion: string | null,
  ): Promise<void> {
    await recordEvent(db, {
      type: 'alias.moved',
      client_id: null,
      model_id: alias.model_id,
      ordering_key: `alias:${alias.model_id}#${alias.alias}`,
      data: { ...alias, previous_version: previousVersion },
    });
  },

  /** subscription.stale, one per subscription an update of a model made stale (registry events). */
  async subscriptionsStale(db: Db, subscriptionIds: string[]): Promise<void> {
    for (const id of subscriptionIds) {
      const row = await subscriptions.findSubscription(db, id);
      if (!row) continue;
      await recordEvent(db, {
        type: 'subscription.stale',
        client_id: null,
        model_id: row.source_model_id,
        ordering_key: `subscription:${id}`,
        data: toSubscription(row),
      });
    }
  },
};
