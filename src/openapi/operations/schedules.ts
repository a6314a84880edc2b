import type { Operation, Tenancy } from './operation';
import { C, DRY_RUN_QUERY } from './paths';

/**
 * The nine routes of one schedule collection (docs/schedules.md). Schedules live beside the one-off action they
 * repeat, with its permission and tenancy: a tenant's service re-scorings (`run_inference`), and the schedules of
 * model versions, one collection per action (`train_model`, `run_inference`), so a caller may schedule exactly
 * what it may start.
 */
function scheduleOperations(
  base: string,
  tenancy: { read: Tenancy; write: Tenancy },
  perm: { read: Operation['permission']; write: Operation['permission'] },
  kind: string,
  what: string,
): Operation[] {
  const one = `${base}/{schedule_id}`;
  const op = (
    id: string,
    method: Operation['method'],
    path: string,
    rest: Omit<Operation, 'id' | 'method' | 'path' | 'tenancy'>,
  ): Operation => ({
    id,
    method,
    path,
    tenancy: method === 'GET' ? tenancy.read : tenancy.write,
    ...rest,
  });
  return [
    op(`create${kind}Schedule`, 'POST', base, {
      permission: perm.write,
      summary: `Create a schedule of ${what}: one Temporal Schedule, each fire one job; ?dry_run=true answers its next 5 fire times and first run`,
      body: kind ? 'CreateVersionScheduleRequest' : 'CreateServiceScheduleRequest',
      response: 'Schedule',
      status: 201,
      errors: [422],
      query: DRY_RUN_QUERY,
    }),
    op(`list${kind}Schedules`, 'GET', base, {
      permission: perm.read,
      summary: `List the schedules of ${what}, newest first`,
      response: 'Schedule',
      status: 200,
      paginated: true,
      query: kind
        ? { model_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Schedules of this model' } }
        : { domain_id: { type: 'string', minLength: 1, maxLength: 200, description: 'Schedules of services of this domain' } },
    }),
    op(`get${kind}Schedule`, 'GET', one, {
      permission: perm.read,
      summary: 'A schedule with its state, next fire times and recent runs',
      response: 'Schedule',
      status: 200,
    }),
    op(`update${kind}Schedule`, 'PUT', one, {
      permission: perm.write,
      summary: "Change a schedule's calendar, policies, input, metadata or description",
      body: 'UpdateScheduleRequest',
      response: 'Schedule',
      status: 200,
      errors: [422],
    }),
    op(`delete${kind}Schedule`, 'DELETE', one, {
      permission: perm.write,
      summary: 'Delete a schedule and its Temporal Schedule (its jobs stay)',
      response: 'Schedule',
      status: 200,
    }),
    op(`pause${kind}Schedule`, 'POST', `${one}/pause`, {
      permission: perm.write,
      summary: 'Pause a schedule, with a note: no fire until it is unpaused',
      body: 'ScheduleStateRequest',
      response: 'Schedule',
      status: 200,
    }),
    op(`unpause${kind}Schedule`, 'POST', `${one}/unpause`, {
      permission: perm.write,
      summary: 'Unpause a schedule, with a note',
      body: 'ScheduleStateRequest',
      response: 'Schedule',
      status: 200,
    }),
    op(`trigger${kind}Schedule`, 'POST', `${one}/trigger`, {
      permission: perm.write,
      summary: 'Fire a schedule now: one job, as a fire would start it',
      body: 'ScheduleTriggerRequest',
      response: 'ScheduleFires',
      status: 202,
      errors: [422],
    }),
    op(`backfill${kind}Schedule`, 'POST', `${one}/backfill`, {
      permission: perm.write,
      summary: 'Take the fires of a past time range now; a fire already decided starts nothing again',
      body: 'ScheduleBackfillRequest',
      response: 'ScheduleFires',
      status: 202,
      errors: [422],
    }),
  ];
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
