export { type FireOutcome, type ScheduleFires, createScheduleFires } from './schedule-fires';
export { startScheduleReconciler } from './schedule-reconciler';
export { type ScheduleScope, type SchedulesService, createSchedulesService } from './schedules.service';
