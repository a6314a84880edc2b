export { EVENT_TYPES } from './event-types';
export { recordEvent, webhookEvents } from './outbox';
export { createWebhookDeliveries } from './webhook-deliveries';
export { type WebhooksService, createWebhooksService } from './webhooks.service';
