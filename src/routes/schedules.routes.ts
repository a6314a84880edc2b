import type { Register } from './types';
import { changeContext, page } from '../http/routing';
import { actorOf } from '../auth/principal';
import type { ScheduleScope, SchedulesService } from '../domain/schedules';

/**
 * The three schedule collections (docs/schedules.md): a tenant's service re-scorings under
 * /v2/clients/{client_id}/schedules, and the schedules of model versions under /v2/training-schedules and
 * /v2/inference-schedules. One service serves them all; the collection is the scope.
 */
export function registerScheduleRoutes(route: Register, schedules: SchedulesService) {
  const tenant = (clientId: string): ScheduleScope => ({ action: 'service_inference', clientId });
  const training: ScheduleScope = { action: 'training' };
  const inference: ScheduleScope = { action: 'inference' };

  route('createSchedule', async (r) => schedules.create(tenant(r.params.client_id), r.body, changeContext(r)));
  route('listSchedules', async (r) => schedules.list(tenant(r.params.client_id), page(r), { domain_id: r.query.domain_id }));
  route('getSchedule', async (r) => schedules.get(tenant(r.params.client_id), r.params.schedule_id));
  route('updateSchedule', async (r) =>
    schedules.update(tenant(r.params.client_id), r.params.schedule_id, r.body, actorOf(r.ctx.state.principal)),
  );
  route('deleteSchedule', async (r) => schedules.remove(tenant(r.params.client_id), r.params.schedule_id));
  route('pauseSchedule', async (r) =>
    schedules.pause(tenant(r.params.client_id), r.params.schedule_id, r.body?.note, actorOf(r.ctx.state.principal)),
  );
  route('unpauseSchedule', async (r) =>
    schedules.unpause(tenant(r.params.client_id), r.params.schedule_id, r.body?.note, actorOf(r.ctx.state.principal)),
  );
  route('triggerSchedule', async (r) => schedules.trigger(tenant(r.params.client_id), r.params.schedule_id, r.body?.overlap));
  route('backfillSchedule', async (r) => schedules.backfill(tenant(r.params.client_id), r.params.schedule_id, r.body));

  route('createTrainingSchedule', async (r) => schedules.create(training, r.body, changeContext(r)));
  route('listTrainingSchedules', async (r) => schedules.list(training, page(r), { model_id: r.query.model_id }));
  route('getTrainingSchedule', async (r) => schedules.get(training, r.params.schedule_id));
  route('updateTrainingSchedule', async (r) => schedules.update(training, r.params.schedule_id, r.body, actorOf(r.ctx.state.principal)));
  route('deleteTrainingSchedule', async (r) => schedules.remove(training, r.params.schedule_id));
  route('pauseTrainingSchedule', async (r) =>
    schedules.pause(training, r.params.schedule_id, r.body?.note, actorOf(r.ctx.state.principal)),
  );
  route('unpauseTrainingSchedule', async (r) =>
    schedules.unpause(training, r.params.schedule_id, r.body?.note, actorOf(r.ctx.state.principal)),
  );
  route('triggerTrainingSchedule', async (r) => schedules.trigger(training, r.params.schedule_id, r.body?.overlap));
  route('backfillTrainingSchedule', async (r) => schedules.backfill(training, r.params.schedule_id, r.body));

  route('createInferenceSchedule', async (r) => schedules.create(inference, r.body, changeContext(r)));
  route('listInferenceSchedules', async (r) => schedules.list(inference, page(r), { model_id: r.query.model_id }));
  route('getInferenceSchedule', async (r) => schedules.get(inference, r.params.schedule_id));
  route('updateInferenceSchedule', async (r) => schedules.update(inference, r.params.schedule_id, r.body, actorOf(r.ctx.state.principal)));
  route('deleteInferenceSchedule', async (r) => schedules.remove(inference, r.params.schedule_id));
  route('pauseInferenceSchedule', async (r) =>
    schedules.pause(inference, r.params.schedule_id, r.body?.note, actorOf(r.ctx.state.principal)),
  );
  route('unpauseInferenceSchedule', async (r) =>
    schedules.unpause(inference, r.params.schedule_id, r.body?.note, actorOf(r.ctx.state.principal)),
  );
  route('triggerInferenceSchedule', async (r) => schedules.trigger(inference, r.params.schedule_id, r.body?.overlap));
  route('backfillInferenceSchedule', async (r) => schedules.backfill(inference, r.params.schedule_id, r.body));
}
