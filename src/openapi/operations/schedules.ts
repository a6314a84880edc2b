import type { Operation, Tenancy } from './operation';
import { C, DRY_RUN_QUERY } from './paths';

/** Where one schedule collection lives, who may use it, and what its schedules start. */
interface ScheduleScope {
  base: string;
  /** The path of one schedule. */
  one: string;
  tenancy: { read: Tenancy; write: Tenancy };
  perm: { read: Operation['permission']; write: Operation['permission'] };
  kind: string;
  what: string;
}

/** An operation of the collection, its tenancy that of reads or of writes. */
function operationOf(s: ScheduleScope) {
  return (
    id: string,
    method: Operation['method'],
    path: string,
    rest: Omit<Operation, 'id' | 'method' | 'path' | 'tenancy'>,
  ): Operation => ({
    id,
    method,
    path,
    tenancy: method === 'GET' ? s.tenancy.read : s.tenancy.write,
    ...rest,
  });
}

/** Creating and listing schedules, and reading, changing and deleting one. */
function scheduleLifecycle(s: ScheduleScope): Operation[] {
  const op = operationOf(s);
  return [
    op(`create${s.kind}Schedule`, 'POST', s.base, {
      permission: s.perm.write,
      summary: `Create a schedule of ${s.what}: one Temporal Schedule, each fire one job; ?dry_run=true answers its next 5 fire times and first run`,
      body: s.kind ? 'CreateVersionScheduleRequest' : 'CreateServiceScheduleRequest',
      response: 'Schedule',
      status: 201,
      errors: [422],
      query: DRY_RUN_QUERY,
    }),
    op(`list${s.kind}Schedules`, 'GET', s.base, {
      permission: s.perm.read,
      summary: `List the schedules of ${s.what}, newest first`,
      response: 'Schedule',
      status: 200,
      paginated: true,
      query: s.kind
        ? { model_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Schedules of this model' } }
        : { domain_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Schedules of services of this domain' } },
    }),
    op(`get${s.kind}Schedule`, 'GET', s.one, {
      permission: s.perm.read,
      summary: 'A schedule with its state, next fire times and recent runs',
      response: 'Schedule',
      status: 200,
    }),
    op(`update${s.kind}Schedule`, 'PUT', s.one, {
      permission: s.perm.write,
      summary: "Change a schedule's calendar, policies, input, metadata or description",
      body: 'UpdateScheduleRequest',
      response: 'Schedule',
      status: 200,
      errors: [422],
    }),
    op(`delete${s.kind}Schedule`, 'DELETE', s.one, {
      permission: s.perm.write,
      summary: 'Delete a schedule and its Temporal Schedule (its jobs stay)',
      response: 'Schedule',
      status: 200,
    }),
  ];
}

/** Pausing a schedule, and fires taken by hand: now, or over a past range. */
function scheduleControls(s: ScheduleScope): Operation[] {
  const op = operationOf(s);
  return [
    op(`pause${s.kind}Schedule`, 'POST', `${s.one}/pause`, {
      permission: s.perm.write,
      summary: 'Pause a schedule, with a note: no fire until it is unpaused',
      body: 'ScheduleStateRequest',
      response: 'Schedule',
      status: 200,
    }),
    op(`unpause${s.kind}Schedule`, 'POST', `${s.one}/unpause`, {
      permission: s.perm.write,
      summary: 'Unpause a schedule, with a note',
      body: 'ScheduleStateRequest',
      response: 'Schedule',
      status: 200,
    }),
    op(`trigger${s.kind}Schedule`, 'POST', `${s.one}/trigger`, {
      permission: s.perm.write,
      summary: 'Fire a schedule now: one job, as a fire would start it',
      body: 'ScheduleTriggerRequest',
      response: 'ScheduleFires',
      status: 202,
      errors: [422],
    }),
    op(`backfill${s.kind}Schedule`, 'POST', `${s.one}/backfill`, {
      permission: s.perm.write,
      summary: 'Take the fires of a past time range now; a fire already decided starts nothing again',
      body: 'ScheduleBackfillRequest',
      response: 'ScheduleFires',
      status: 202,
      errors: [422],
    }),
  ];
}

/**
 * The nine routes of one schedule collection (docs/schedules.md). Schedules live beside the one-off action they
 * repeat, with its permission and tenancy: a tenant's service re-scorings (`run_inference`), and the schedules of
 * model versions, one collection per action (`train_model`, `run_inference`), so a caller may schedule exactly
 * what it may start.
 */
function scheduleOperations(
  base: string,
  tenancy: ScheduleScope['tenancy'],
  perm: ScheduleScope['perm'],
  kind: string,
  what: string,
): Operation[] {
  const scope = { base, one: `${base}/{schedule_id}`, tenancy, perm, kind, what };
  return [...scheduleLifecycle(scope), ...scheduleControls(scope)];
}

/** A tenant's service re-scorings, and the platform's schedules of training and direct inference. */
export const SCHEDULE_OPERATIONS: Operation[] = [
  ...scheduleOperations(
    `${C}/schedules`,
    { read: 'tenant', write: 'tenant' },
    { read: 'client_read', write: 'run_inference' },
    '',
    "a tenant's services (re-scoring)",
  ),
  ...scheduleOperations(
    '/v2/training-schedules',
    { read: 'global', write: 'platform' },
    { read: 'read_models', write: 'train_model' },
    'Training',
    'training of model versions',
  ),
  ...scheduleOperations(
    '/v2/inference-schedules',
    { read: 'global', write: 'platform' },
    { read: 'read_models', write: 'run_inference' },
    'Inference',
    'direct inference of model versions',
  ),
];
