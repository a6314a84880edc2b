import type { Register } from './types';
import { changeContext, page, type RouteContext } from '../http/routing';
import { actorOf } from '../auth/principal';
import type { ScheduleScope, SchedulesService } from '../domain/schedules';

/**
 * The three schedule collections (docs/schedules.md): a tenant's service re-scorings under
 * /v2/clients/{client_id}/schedules, and the schedules of model versions under /v2/training-schedules and
 * /v2/inference-schedules. One service serves them all; the collection is the scope.
 */
/** Who makes the change, for `created_by` / `updated_by`. */
const actor = (r: Pick<RouteContext, 'ctx'>) => actorOf(r.ctx.state.principal);

export function registerScheduleRoutes(route: Register, schedules: SchedulesService) {
  const tenant = (clientId: string): ScheduleScope => ({ action: 'service_inference', clientId });

  route('createSchedule', async (r) => schedules.create(tenant(r.params.client_id), r.body, changeContext(r)));
  route('listSchedules', async (r) => schedules.list(tenant(r.params.client_id), page(r), { domain_id: r.query.domain_id }));
  route('getSchedule', async (r) => schedules.get(tenant(r.params.client_id), r.params.schedule_id));
  route('updateSchedule', async (r) => schedules.update(tenant(r.params.client_id), r.params.schedule_id, r.body, actor(r)));
  route('deleteSchedule', async (r) => schedules.remove(tenant(r.params.client_id), r.params.schedule_id));
  route('pauseSchedule', async (r) => schedules.pause(tenant(r.params.client_id), r.params.schedule_id, r.body?.note, actor(r)));
  route('unpauseSchedule', async (r) => schedules.unpause(tenant(r.params.client_id), r.params.schedule_id, r.body?.note, actor(r)));
  route('triggerSchedule', async (r) => schedules.trigger(tenant(r.params.client_id), r.params.schedule_id, r.body?.overlap));
  route('backfillSchedule', async (r) => schedules.backfill(tenant(r.params.client_id), r.params.schedule_id, r.body));

  versionRoutes(route, schedules, 'Training', { action: 'training' });
  versionRoutes(route, schedules, 'Inference', { action: 'inference' });
}

/**
 * The training and the inference collection take the same requests and differ only in their action (and, in the
 * operation table, their permission): registered from one list, typed by the training operations.
 */
function versionRoutes(route: Register, schedules: SchedulesService, kind: 'Training' | 'Inference', scope: ScheduleScope) {
  const id = <O extends string>(op: O) => op.replace('Training', kind) as O;
  route(id('createTrainingSchedule'), async (r) => schedules.create(scope, r.body, changeContext(r)));
  route(id('listTrainingSchedules'), async (r) => schedules.list(scope, page(r), { model_id: r.query.model_id }));
  route(id('getTrainingSchedule'), async (r) => schedules.get(scope, r.params.schedule_id));
  route(id('updateTrainingSchedule'), async (r) => schedules.update(scope, r.params.schedule_id, r.body, actor(r)));
  route(id('deleteTrainingSchedule'), async (r) => schedules.remove(scope, r.params.schedule_id));
  route(id('pauseTrainingSchedule'), async (r) => schedules.pause(scope, r.params.schedule_id, r.body?.note, actor(r)));
  route(id('unpauseTrainingSchedule'), async (r) => schedules.unpause(scope, r.params.schedule_id, r.body?.note, actor(r)));
  route(id('triggerTrainingSchedule'), async (r) => schedules.trigger(scope, r.params.schedule_id, r.body?.overlap));
  route(id('backfillTrainingSchedule'), async (r) => schedules.backfill(scope, r.params.schedule_id, r.body));
}
