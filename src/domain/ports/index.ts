export {
  type ClosedUnfinished,
  type CompletionDelivery,
  type JobGateway,
  type Readiness,
  WorkflowStartRefused,
  fairnessKeyFor,
  workflowIdFor,
} from './job-gateway.port';
export type { ClientFilter, ClientStore } from './client-store.port';
export type { JobStore, SubscriptionStore } from './job-stores.port';
export type { DomainOwner, OutboxEvent, OutboxStore } from './outbox-store.port';
export {
  SCHEDULE_ID_PREFIX,
  type ScheduleDefinition,
  type ScheduleGateway,
  ScheduleSpecRefused,
  scheduleIdOf,
  temporalScheduleIdFor,
} from './schedule-gateway.port';
export type { WebhookLauncher, WebhookQueue } from './webhook-launcher.port';
