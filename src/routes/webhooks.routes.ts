import type { Register } from './types';
import { page } from '../http/routing';
import type { WebhooksService } from '../domain/webhooks';

/** Tenant endpoints under /v2/clients/{client_id}/webhooks, and platform-wide ones (owner null) under /v2/webhooks. */
export function registerWebhookRoutes(route: Register, webhooks: WebhooksService) {
  route('createWebhook', async (r) => webhooks.create(r.params.client_id, r.body));
  route('listWebhooks', async (r) => webhooks.list(r.params.client_id, page(r), r.query.status));
  route('getWebhook', async (r) => webhooks.get(r.params.client_id, r.params.webhook_id));
  route('updateWebhook', async (r) => webhooks.update(r.params.client_id, r.params.webhook_id, r.body));
  route('deleteWebhook', async (r) => webhooks.remove(r.params.client_id, r.params.webhook_id));
  route('rotateWebhookSecret', async (r) => webhooks.rotateSecret(r.params.client_id, r.params.webhook_id));
  route('pingWebhook', async (r) => webhooks.ping(r.params.client_id, r.params.webhook_id));
  route('listWebhookDeliveries', async (r) => webhooks.listDeliveries(r.params.client_id, r.params.webhook_id, page(r), r.query.status));
  route('getWebhookDelivery', async (r) => webhooks.getDelivery(r.params.client_id, r.params.webhook_id, r.params.delivery_id));
  route('redeliverWebhookDelivery', async (r) => webhooks.redeliver(r.params.client_id, r.params.webhook_id, r.params.delivery_id));

  route('createPlatformWebhook', async (r) => webhooks.create(null, r.body));
  route('listPlatformWebhooks', async (r) => webhooks.list(null, page(r), r.query.status));
  route('getPlatformWebhook', async (r) => webhooks.get(null, r.params.webhook_id));
  route('updatePlatformWebhook', async (r) => webhooks.update(null, r.params.webhook_id, r.body));
  route('deletePlatformWebhook', async (r) => webhooks.remove(null, r.params.webhook_id));
  route('rotatePlatformWebhookSecret', async (r) => webhooks.rotateSecret(null, r.params.webhook_id));
  route('pingPlatformWebhook', async (r) => webhooks.ping(null, r.params.webhook_id));
  route('listPlatformWebhookDeliveries', async (r) => webhooks.listDeliveries(null, r.params.webhook_id, page(r), r.query.status));
  route('getPlatformWebhookDelivery', async (r) => webhooks.getDelivery(null, r.params.webhook_id, r.params.delivery_id));
  route('redeliverPlatformWebhookDelivery', async (r) => webhooks.redeliver(null, r.params.webhook_id, r.params.delivery_id));
}
