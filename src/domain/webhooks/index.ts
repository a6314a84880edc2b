export { EVENT_TYPES } from './event-types';
export { type NewEvent, jobFinishedEvent, recordEvent, recordEvents, serviceStatusEvent, webhookEvents } from './outbox';
export { createWebhookDeliveries } from './webhook-deliveries';
export { type WebhooksService, createWebhooksService } from './webhooks.service';
