import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { inTransaction } from '../../db/transaction';
import * as repo from '../../db/schedules.repository';
import * as models from '../../db/models.repository';
import { findDomain } from '../../db/domains.repository';
import { findService } from '../../db/services.repository';
import { mapPage, type PageRequest } from '../../paging';
import { uuidv7 } from '../../ids';
import { InvalidInputError, UnprocessableError } from '../../errors';
import type { SchedulePolicies } from '../../shapes';
import type { Schemas } from '../../openapi/types';
import type { ScheduleGateway } from '../ports';
import { assertValidSpec, fireTimes } from './schedule-spec';
import { toSchedule } from './schedule.view';
import type { ScheduleFires } from './schedule-fires';
import type { Admission } from '../jobs';
import { assertClientActive, requireClient } from '../common';
import { UNATTRIBUTED, type ChangeContext } from '../common';
import { scheduleEvents } from './schedule-events';
import type { Outbox } from '../webhooks';
import { PREVIEW_FIRES, definition, presentSchedule, temporalChange, visibleSchedule, type ScheduleScope } from './schedule-access';
import { createScheduleControls } from './schedule-controls.service';

export interface ScheduleLimits {
  /** Most schedules of one tenant (and of no tenant: the schedules of model versions). */
  maxPerTenant: number;
  /** Shortest interval of a spec, in seconds. */
  minIntervalSeconds: number;
  /** Most fires one backfill may take. */
  maxBackfillFires: number;
}

const DEFAULT_POLICIES: SchedulePolicies = { overlap: 'skip', catchup_window_seconds: 3600, pause_on_failure: false };

type CreateBody = Schemas['CreateServiceScheduleRequest'] | Schemas['CreateVersionScheduleRequest'];
type ScheduleTarget = Pick<
  repo.ScheduleView,
  'client_id' | 'domain_uuid' | 'domain_id' | 'service_uuid' | 'service_id' | 'model_id' | 'model_version' | 'input'
>;

/** The target as a row would hold it; an unknown target is a 400 naming the field. */
async function target(knex: Knex, scope: ScheduleScope, body: CreateBody): Promise<ScheduleTarget> {
  if (scope.action === 'service_inference') {
    const b = body as Schemas['CreateServiceScheduleRequest'];
    assertClientActive(await requireClient(knex, scope.clientId));
    const domain = await findDomain(knex, scope.clientId, b.domain_id);
    if (!domain) throw new InvalidInputError(`domain_id: domain ${b.domain_id} does not exist in client ${scope.clientId}`);
    const service = await findService(knex, domain.domain_uuid, b.service_id);
    if (!service) throw new InvalidInputError(`service_id: service ${b.service_id} does not exist in domain ${b.domain_id}`);
    return {
      client_id: scope.clientId,
      domain_uuid: domain.domain_uuid,
      domain_id: domain.domain_id,
      service_uuid: service.service_uuid,
      service_id: service.service_id,
      model_id: null,
      model_version: null,
      input: null,
    };
  }
  const b = body as Schemas['CreateVersionScheduleRequest'];
  if (!(await models.findModel(knex, b.model_id))) throw new InvalidInputError(`model_id: model ${b.model_id} does not exist`);
  if (!(await models.findVersion(knex, b.model_id, b.model_version))) {
    throw new InvalidInputError(`model_version: version ${b.model_version} of model ${b.model_id} does not exist`);
  }
  return {
    client_id: null,
    domain_uuid: null,
    domain_id: null,
    service_uuid: null,
    service_id: null,
    model_id: b.model_id,
    model_version: b.model_version,
    input: b.input ?? {},
  };
}

/** The row a create writes, at its first revision. */
function newSchedule(scope: ScheduleScope, body: CreateBody, where: ScheduleTarget, actor: string | null, now: Date): repo.ScheduleView {
  return {
    schedule_id: uuidv7(),
    action: scope.action,
    ...where,
    metadata: body.metadata ?? {},
    description: body.description ?? '',
    spec: body.spec,
    policies: { ...DEFAULT_POLICIES, ...body.policies },
    paused: body.paused ?? false,
    note: body.note ?? '',
    revision: 1,
    created_by: actor,
    updated_by: actor,
    created_at: now,
    updated_at: now,
  };
}

/** A dry run's answer: the schedule as it would be, its next fire times and what a fire now would start. */
async function dryRunAnswer(fires: Pick<ScheduleFires, 'preview'>, row: repo.ScheduleView, now: Date) {
  const next = fireTimes(row.spec, now, undefined, PREVIEW_FIRES);
  const first = await fires.preview(row, next[0] ?? now);
  return {
    ...toSchedule(row, { paused: row.paused, note: row.note, nextFireTimes: row.paused ? [] : next }, [], null),
    preview: {
      dry_run: true as const,
      next_fire_times: next.map((t) => t.toISOString()),
      first_run:
        'job' in first
          ? {
              would_start: true,
              skipped_reason: null,
              job: {
                job_type: first.job.job_type,
                trigger: 'schedule' as const,
                model_id: first.job.model_id,
                model_version: first.job.model_version,
                client_id: first.job.client_id,
                domain_id: first.job.domain_id,
                service_id: first.job.service_id,
                input: first.job.input,
              },
            }
          : { would_start: false, skipped_reason: first.reason, job: null },
    },
  };
}

/** The row after an update: the fields given replaced (policies merged), at the next revision. */
function revised(row: repo.ScheduleView, body: Schemas['UpdateScheduleRequest'], actor: string | null): repo.ScheduleView {
  return {
    ...row,
    ...(body.spec ? { spec: body.spec } : {}),
    ...(body.policies ? { policies: { ...row.policies, ...body.policies } } : {}),
    ...(body.input !== undefined ? { input: body.input } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    revision: row.revision + 1,
    updated_by: actor,
  };
}

/**
 * Schedules (docs/schedules.md): the row in Postgres is the definition; its Temporal Schedule is created, changed
 * and deleted inside the row's transaction, so a refusal by either writes nothing in both, and the worker's
 * reconciler (src/domain/schedules/schedule-reconciler.ts) mends the rare commit lost after Temporal took the change.
 */
export function createSchedulesService(deps: {
  knex: Knex;
  gateway: ScheduleGateway;
  fires: Pick<ScheduleFires, 'preview'>;
  limits: ScheduleLimits;
  log: Logger;
  /** The tenant's job bucket: a trigger or backfill it cannot hold is refused when asked; none: no limit. */
  admission?: Pick<Admission, 'assertRoom'>;
  /** Where the `schedule.changed` events are written, with the change. */
  outbox: Outbox;
}) {
  const { knex, gateway, limits, outbox } = deps;
  const present = (row: repo.ScheduleView) => presentSchedule(deps, row);

  return {
    /**
     * Creates the row and its Temporal Schedule in one transaction. With `?dry_run=true`, writes nothing and answers
     * the next 5 fire times and what a fire now would start (or the rule that would skip it).
     */
    async create(scope: ScheduleScope, body: CreateBody, change: ChangeContext = UNATTRIBUTED) {
      assertValidSpec(body.spec, limits);
      const row = newSchedule(scope, body, await target(knex, scope, body), change.actor, new Date());
      if (change.dryRun) return dryRunAnswer(deps.fires, row, row.created_at);
      await inTransaction(knex, async (trx) => {
        const owned = await repo.lockAndCountOwned(trx, row.client_id);
        if (owned >= limits.maxPerTenant) {
          throw new UnprocessableError(
            `${row.client_id ? `client ${row.client_id}` : 'the model registry'} has ${owned} schedules, the most allowed (SCHEDULES_MAX_PER_TENANT)`,
          );
        }
        const { domain_id: _domain, service_id: _service, revision: _revision, created_at: _c, updated_at: _u, ...stored } = row;
        await repo.insertSchedule(trx, stored);
        await scheduleEvents.changed(outbox(trx), row, 'created');
        await temporalChange(() => gateway.create(definition(row)));
      });
      return present((await repo.findSchedule(knex, row.schedule_id))!);
    },

    async get(scope: ScheduleScope, scheduleId: string) {
      return present(await visibleSchedule(knex, scope, scheduleId));
    },

    async list(scope: ScheduleScope, page: PageRequest, filter: { domain_id?: string; model_id?: string }) {
      const rows = await repo.listSchedules(
        knex,
        { client_id: scope.action === 'service_inference' ? scope.clientId : null, action: scope.action, ...filter },
        page,
      );
      const items = await Promise.all(rows.items.map(present));
      return { ...mapPage(rows, () => null), items };
    },

    /** Replaces the fields given in the row and in Temporal, in one transaction. */
    async update(scope: ScheduleScope, scheduleId: string, body: Schemas['UpdateScheduleRequest'], actor: string | null) {
      if (body.spec) assertValidSpec(body.spec, limits);
      if (body.input !== undefined && scope.action === 'service_inference') {
        throw new InvalidInputError("input: a service schedule's input is the service's current features; it takes none");
      }
      await inTransaction(knex, async (trx) => {
        const changed = revised(await visibleSchedule(trx, scope, scheduleId, true), body, actor);
        const { spec, policies, input, metadata, description } = changed;
        await repo.updateSchedule(trx, scheduleId, { spec, policies, input, metadata, description, updated_by: actor });
        await scheduleEvents.changed(outbox(trx), changed, 'updated');
        await temporalChange(() => gateway.update(definition(changed)));
      });
      return present((await repo.findSchedule(knex, scheduleId))!);
    },

    /** Deletes the row (with its runs; its jobs stay) and its Temporal Schedule, in one transaction. */
    async remove(scope: ScheduleScope, scheduleId: string) {
      return inTransaction(knex, async (trx) => {
        const row = await visibleSchedule(trx, scope, scheduleId, true);
        await repo.deleteSchedule(trx, scheduleId);
        await scheduleEvents.changed(outbox(trx), row, 'deleted');
        await temporalChange(() => gateway.delete(scheduleId));
        return toSchedule(row, { paused: row.paused, note: row.note, nextFireTimes: [] }, [], null);
      });
    },

    ...createScheduleControls(deps),
  };
}

export type SchedulesService = ReturnType<typeof createSchedulesService>;

/**
 * One pass of the reconciler (src/domain/schedules/schedule-reconciler.ts): a row without its Temporal Schedule gets one
 * (made from the row), and a Temporal Schedule of this service without a row is deleted. Both only past
 * `graceSeconds` of age, so a change whose transaction is still open is left alone. Returns what it mended.
 */
export async function reconcileSchedules(
  deps: { knex: Knex; gateway: ScheduleGateway; log: Logger },
  graceSeconds: number,
): Promise<{ created: string[]; deleted: string[] }> {
  const { knex, gateway } = deps;
  const inTemporal = new Set(await gateway.listIds());
  const rows = await repo.allScheduleIds(knex);
  const inPostgres = new Set(rows.map((r) => r.schedule_id));
  const cutoff = Date.now() - graceSeconds * 1000;
  const created: string[] = [];
  const deleted: string[] = [];
  for (const { schedule_id, created_at } of rows) {
    if (inTemporal.has(schedule_id) || created_at.getTime() > cutoff) continue;
    const row = await repo.findSchedule(knex, schedule_id);
    // Visibility lags: a schedule it does not list yet may exist ('existing' then).
    if (row && (await gateway.create(definition(row))) === 'created') created.push(schedule_id);
  }
  for (const scheduleId of inTemporal) {
    if (inPostgres.has(scheduleId)) continue;
    // A schedule deleted a moment ago may still be listed, and describing it may not answer: next pass.
    const live = await gateway.describe(scheduleId).catch(() => undefined);
    if (!live || live.createdAt.getTime() > cutoff) continue;
    if ((await repo.findSchedule(knex, scheduleId)) === undefined && (await gateway.delete(scheduleId)) === 'deleted')
      deleted.push(scheduleId);
  }
  if (created.length || deleted.length) deps.log.warn({ created, deleted }, 'schedule reconciler mended rows and Temporal Schedules');
  return { created, deleted };
}
