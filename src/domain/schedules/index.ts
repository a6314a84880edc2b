export { type FireOutcome, type ScheduleFires, createScheduleFires } from './schedule-fires';
export { startScheduleReconciler } from './schedule-reconciler';
export { type ScheduleScope } from './schedule-access';
export { type SchedulesService, createSchedulesService } from './schedules.service';
