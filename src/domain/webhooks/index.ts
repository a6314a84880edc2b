export { EVENT_TYPES } from './event-types';
export { type NewEvent, type Outbox, type OutboxEvents, createOutbox, jobFinishedEvent, outboxEvents, serviceStatusEvent } from './outbox';
export { createWebhookDeliveries } from './webhook-deliveries';
export { type WebhooksService, createWebhooksService } from './webhooks.service';
