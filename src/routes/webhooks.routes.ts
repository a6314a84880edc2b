import type { Register } from './types';
import { page, RouteContext } from '../http/routing';
import type { WebhooksService, WebhookOwner } from '../domain/webhooks';

/** The tenant routes and the platform-wide ones (`kind` "Platform", no {client_id}) share their handlers. */
export function registerWebhookRoutes(route: Register, webhooks: WebhooksService) {
  for (const kind of ['', 'Platform']) {
    const owner = (r: RouteContext): WebhookOwner => (kind ? null : r.params.client_id);
    route(`create${kind}Webhook`, async (r) => webhooks.create(owner(r), r.body));
    route(`list${kind}Webhooks`, async (r) => webhooks.list(owner(r), page(r), r.query.status));
    route(`get${kind}Webhook`, async (r) => webhooks.get(owner(r), r.params.webhook_id));
    route(`update${kind}Webhook`, async (r) => webhooks.update(owner(r), r.params.webhook_id, r.body));
    route(`delete${kind}Webhook`, async (r) => webhooks.remove(owner(r), r.params.webhook_id));
    route(`rotate${kind}WebhookSecret`, async (r) => webhooks.rotateSecret(owner(r), r.params.webhook_id));
    route(`ping${kind}Webhook`, async (r) => webhooks.ping(owner(r), r.params.webhook_id));
    route(`list${kind}WebhookDeliveries`, async (r) => webhooks.listDeliveries(owner(r), r.params.webhook_id, page(r), r.query.status));
    route(`get${kind}WebhookDelivery`, async (r) => webhooks.getDelivery(owner(r), r.params.webhook_id, r.params.delivery_id));
    route(`redeliver${kind}WebhookDelivery`, async (r) => webhooks.redeliver(owner(r), r.params.webhook_id, r.params.delivery_id));
  }
}
