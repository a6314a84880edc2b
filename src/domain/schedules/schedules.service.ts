import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { inTransaction } from '../../db/transaction';
import * as repo from '../../db/schedules.repository';
import * as models from '../../db/models.repository';
import { findDomain } from '../../db/domains.repository';
import { findService } from '../../db/services.repository';
import { mapPage, type PageRequest } from '../../paging';
import { uuidv7 } from '../../ids';
import { InvalidInputError, NotFoundError, UnavailableError, UnprocessableError } from '../../errors';
import type { OverlapPolicy, SchedulePolicies } from '../../shapes';
import type { Schemas } from '../../openapi/types';
import { ScheduleSpecRefused, type ScheduleDefinition, type ScheduleGateway } from '../ports';
import { assertValidSpec, fireTimes } from './schedule-spec';
import { toSchedule } from './schedule.view';
import type { ScheduleFires } from './schedule-fires';
import type { Admission } from '../jobs';
import { assertClientActive, requireClient } from '../common';
import { UNATTRIBUTED, type ChangeContext } from '../common';
import { scheduleEvents } from './schedule-events';

/** A schedule collection: a tenant's service re-scorings, or the schedules of model versions of one action. */
export type ScheduleScope = { action: 'service_inference'; clientId: string } | { action: 'training' | 'inference' };

export interface ScheduleLimits {
  /** Most schedules of one tenant (and of no tenant: the schedules of model versions). */
  maxPerTenant: number;
  /** Shortest interval of a spec, in seconds. */
  minIntervalSeconds: number;
  /** Most fires one backfill may take. */
  maxBackfillFires: number;
}

const DEFAULT_POLICIES: SchedulePolicies = { overlap: 'skip', catchup_window_seconds: 3600, pause_on_failure: false };
const RECENT_RUNS = 10;
const PREVIEW_FIRES = 5;

type CreateBody = Schemas['CreateServiceScheduleRequest'] | Schemas['CreateVersionScheduleRequest'];

function definition(row: repo.ScheduleView): ScheduleDefinition {
  return {
    scheduleId: row.schedule_id,
    action: row.action,
    spec: row.spec,
    policies: row.policies,
    paused: row.paused,
    note: row.note,
    labels: {
      clientId: row.client_id,
      domainId: row.domain_id,
      serviceId: row.service_id,
      modelId: row.model_id,
      modelVersion: row.model_version,
      description: row.description,
    },
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
}) {
  const { knex, gateway, limits } = deps;

  async function visible(scope: ScheduleScope, scheduleId: string, db: Knex | Knex.Transaction = knex, lock = false) {
    const row = await repo.findSchedule(db, scheduleId, lock);
    const owned = row && row.action === scope.action && (scope.action !== 'service_inference' || row.client_id === scope.clientId);
    if (!owned) throw new NotFoundError(`schedule ${scheduleId} not found`);
    return row;
  }

  /** Temporal answers for the schedule, or the row alone while Temporal is unreachable (the read still answers). */
  async function present(row: repo.ScheduleView) {
    const [live, runs] = await Promise.all([
      gateway.describe(row.schedule_id).catch((err: unknown) => {
        deps.log.warn({ err, scheduleId: row.schedule_id }, 'Temporal did not describe the schedule; answering from the row');
        return undefined;
      }),
      repo.recentRuns(knex, row.schedule_id, RECENT_RUNS),
    ]);
    // Temporal computes a new schedule's next action times in the schedule's own workflow, a moment after the
    // create returns: until then (and when it does not answer) they come from the same calendar rules.
    const times =
      live?.nextFireTimes.length || row.paused
        ? live
        : { paused: row.paused, note: row.note, ...live, nextFireTimes: fireTimes(row.spec, new Date(), undefined, PREVIEW_FIRES) };
    return toSchedule(row, times, runs, gateway.uiUrl(row.schedule_id));
  }

  /** Temporal's refusal of a calendar ours let through is still the caller's mistake: a 400 naming the spec. */
  async function temporal<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ScheduleSpecRefused) throw new InvalidInputError(`spec: Temporal refused it: ${err.message}`);
      if (err instanceof InvalidInputError || err instanceof UnprocessableError) throw err;
      throw new UnavailableError(`Temporal did not take the schedule change: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The target as a row would hold it; an unknown target is a 400 naming the field. */
  async function target(scope: ScheduleScope, body: CreateBody) {
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

  async function changeState(scope: ScheduleScope, scheduleId: string, paused: boolean, note: string | undefined, actor: string | null) {
    await inTransaction(knex, async (trx) => {
      const row = await visible(scope, scheduleId, trx, true);
      const text = note ?? '';
      await repo.updateSchedule(trx, scheduleId, { paused, note: text, updated_by: actor });
      await scheduleEvents.changed(trx, { ...row, paused, note: text }, paused ? 'paused' : 'unpaused');
      await temporal(() => (paused ? gateway.pause(scheduleId, text) : gateway.unpause(scheduleId, text)));
    });
    return present((await repo.findSchedule(knex, scheduleId))!);
  }

  return {
    /**
     * Creates the row and its Temporal Schedule in one transaction. With `?dry_run=true`, writes nothing and answers
     * the next 5 fire times and what a fire now would start (or the rule that would skip it).
     */
    async create(scope: ScheduleScope, body: CreateBody, change: ChangeContext = UNATTRIBUTED) {
      assertValidSpec(body.spec, limits);
      const policies: SchedulePolicies = { ...DEFAULT_POLICIES, ...body.policies };
      const where = await target(scope, body);
      const now = new Date();
      const row: repo.ScheduleView = {
        schedule_id: uuidv7(),
        action: scope.action,
        ...where,
        metadata: body.metadata ?? {},
        description: body.description ?? '',
        spec: body.spec,
        policies,
        paused: body.paused ?? false,
        note: body.note ?? '',
        revision: 1,
        created_by: change.actor,
        updated_by: change.actor,
        created_at: now,
        updated_at: now,
      };
      if (change.dryRun) {
        const next = fireTimes(row.spec, now, undefined, PREVIEW_FIRES);
        const first = await deps.fires.preview(row, next[0] ?? now);
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
      await inTransaction(knex, async (trx) => {
        const owned = await repo.lockAndCountOwned(trx, row.client_id);
        if (owned >= limits.maxPerTenant) {
          throw new UnprocessableError(
            `${row.client_id ? `client ${row.client_id}` : 'the model registry'} has ${owned} schedules, the most allowed (SCHEDULES_MAX_PER_TENANT)`,
          );
        }
        const { domain_id: _domain, service_id: _service, revision: _revision, created_at: _c, updated_at: _u, ...stored } = row;
        await repo.insertSchedule(trx, stored);
        await scheduleEvents.changed(trx, row, 'created');
        await temporal(() => gateway.create(definition(row)));
      });
      return present((await repo.findSchedule(knex, row.schedule_id))!);
    },

    async get(scope: ScheduleScope, scheduleId: string) {
      return present(await visible(scope, scheduleId));
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
        const row = await visible(scope, scheduleId, trx, true);
        const changed: repo.ScheduleView = {
          ...row,
          ...(body.spec ? { spec: body.spec } : {}),
          ...(body.policies ? { policies: { ...row.policies, ...body.policies } } : {}),
          ...(body.input !== undefined ? { input: body.input } : {}),
          ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          revision: row.revision + 1,
          updated_by: actor,
        };
        await repo.updateSchedule(trx, scheduleId, {
          spec: changed.spec,
          policies: changed.policies,
          input: changed.input,
          metadata: changed.metadata,
          description: changed.description,
          updated_by: actor,
        });
        await scheduleEvents.changed(trx, changed, 'updated');
        await temporal(() => gateway.update(definition(changed)));
      });
      return present((await repo.findSchedule(knex, scheduleId))!);
    },

    /** Deletes the row (with its runs; its jobs stay) and its Temporal Schedule, in one transaction. */
    async remove(scope: ScheduleScope, scheduleId: string) {
      return inTransaction(knex, async (trx) => {
        const row = await visible(scope, scheduleId, trx, true);
        await repo.deleteSchedule(trx, scheduleId);
        await scheduleEvents.changed(trx, row, 'deleted');
        await temporal(() => gateway.delete(scheduleId));
        return toSchedule(row, { paused: row.paused, note: row.note, nextFireTimes: [] }, [], null);
      });
    },

    pause: (scope: ScheduleScope, scheduleId: string, note: string | undefined, actor: string | null) =>
      changeState(scope, scheduleId, true, note, actor),

    unpause: (scope: ScheduleScope, scheduleId: string, note: string | undefined, actor: string | null) =>
      changeState(scope, scheduleId, false, note, actor),

    /**
     * One fire now, through Temporal; its nominal time is when Temporal takes it. By default under the schedule's own
     * overlap policy: Temporal watches no job started under `allow_all`, so the schedule's `skip` and pause-on-failure
     * would not see a triggered job that ran under it.
     */
    async trigger(scope: ScheduleScope, scheduleId: string, requested?: OverlapPolicy) {
      const row = await visible(scope, scheduleId);
      await deps.admission?.assertRoom(row.client_id, 1, 'the trigger');
      const overlap = requested ?? row.policies.overlap;
      await temporal(() => gateway.trigger(scheduleId, overlap));
      return { schedule_id: scheduleId, kind: 'trigger' as const, overlap, nominal_times: null };
    },

    /**
     * The fires of [start_at, end_at), at most SCHEDULE_MAX_BACKFILL_FIRES, handed to Temporal. A nominal time
     * already decided (a repeated backfill) starts nothing again: its run row and job id are its identity.
     */
    async backfill(scope: ScheduleScope, scheduleId: string, body: Schemas['ScheduleBackfillRequest']) {
      const start = new Date(body.start_at);
      const end = new Date(body.end_at);
      if (end <= start) throw new InvalidInputError('end_at must be after start_at');
      if (end.getTime() > Date.now()) throw new InvalidInputError('end_at must not be in the future: a backfill takes past fires');
      const row = await visible(scope, scheduleId);
      // [start_at, end_at): a past hour at 10-minute intervals is 6 fires. Temporal's backfill includes both ends,
      // so it is handed the range's last millisecond as its end.
      const last = new Date(end.getTime() - 1);
      const times = fireTimes(row.spec, start, last, limits.maxBackfillFires + 1);
      if (times.length > limits.maxBackfillFires) {
        throw new InvalidInputError(
          `start_at..end_at holds more than ${limits.maxBackfillFires} fires, the most one backfill takes (SCHEDULE_MAX_BACKFILL_FIRES); split the range`,
        );
      }
      await deps.admission?.assertRoom(row.client_id, times.length, 'the backfill');
      // Every fire of the range runs, one at a time and after any running job of the schedule, so that its overlap
      // policy and pause-on-failure see each of them (Temporal watches no job started under `allow_all`).
      const overlap = body.overlap ?? 'buffer_all';
      await temporal(() => gateway.backfill(scheduleId, start, last, overlap));
      return { schedule_id: scheduleId, kind: 'backfill' as const, overlap, nominal_times: times.map((t) => t.toISOString()) };
    },
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
