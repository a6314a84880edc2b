import type { Operation, Tenancy } from './operation';
import { W, PW, statusFilter } from './paths';

/** The ten webhook routes under `base`; `kind` names the platform-wide set ("createPlatformWebhook"). */
function webhookOperations(
  base: string,
  tenancy: Tenancy,
  perm: { read: Operation['permission']; write: Operation['permission'] },
  kind: string,
): Operation[] {
  const one = `${base}/{webhook_id}`;
  const whose = kind ? 'a platform-wide' : "a tenant's";
  return [
    {
      id: `create${kind}Webhook`,
      method: 'POST',
      path: base,
      permission: perm.write,
      tenancy,
      summary: `Create ${whose} webhook endpoint; the answer holds its signing secret, once`,
      body: 'CreateWebhookRequest',
      response: 'WebhookWithSecret',
      status: 201,
      errors: [422],
    },
    {
      id: `list${kind}Webhooks`,
      method: 'GET',
      path: base,
      permission: perm.read,
      tenancy,
      summary: `List ${kind ? 'the platform-wide' : "a tenant's"} webhook endpoints`,
      response: 'Webhook',
      status: 200,
      paginated: true,
      query: statusFilter(['active', 'disabled', 'failing']),
    },
    {
      id: `get${kind}Webhook`,
      method: 'GET',
      path: one,
      permission: perm.read,
      tenancy,
      summary: 'Read a webhook endpoint (never its secret)',
      response: 'Webhook',
      status: 200,
    },
    {
      id: `update${kind}Webhook`,
      method: 'PUT',
      path: one,
      permission: perm.write,
      tenancy,
      summary: 'Change a webhook endpoint, or disable or re-activate it',
      body: 'UpdateWebhookRequest',
      response: 'Webhook',
      status: 200,
      errors: [422],
    },
    {
      id: `delete${kind}Webhook`,
      method: 'DELETE',
      path: one,
      permission: perm.write,
      tenancy,
      summary: 'Delete a webhook endpoint and its delivery log',
      response: 'Webhook',
      status: 200,
    },
    {
      id: `rotate${kind}WebhookSecret`,
      method: 'POST',
      path: `${one}/rotate-secret`,
      permission: perm.write,
      tenancy,
      summary: 'Replace the signing secret; the old one keeps signing beside it for a grace period',
      response: 'WebhookSecret',
      status: 200,
    },
    {
      id: `ping${kind}Webhook`,
      method: 'POST',
      path: `${one}/ping`,
      permission: perm.write,
      tenancy,
      summary: 'Send a webhook.test event to this endpoint',
      response: 'WebhookDelivery',
      status: 202,
      errors: [422],
    },
    {
      id: `list${kind}WebhookDeliveries`,
      method: 'GET',
      path: `${one}/deliveries`,
      permission: perm.read,
      tenancy,
      summary: 'The delivery log of an endpoint, newest first: attempts, status codes, latency, next retry',
      response: 'WebhookDelivery',
      status: 200,
      paginated: true,
      query: statusFilter(['pending', 'succeeded', 'failed']),
    },
    {
      id: `get${kind}WebhookDelivery`,
      method: 'GET',
      path: `${one}/deliveries/{delivery_id}`,
      permission: perm.read,
      tenancy,
      summary: 'One delivery with its attempts',
      response: 'WebhookDelivery',
      status: 200,
    },
    {
      id: `redeliver${kind}WebhookDelivery`,
      method: 'POST',
      path: `${one}/deliveries/{delivery_id}/redeliver`,
      permission: perm.write,
      tenancy,
      summary: 'Send a succeeded or failed delivery again (same event id)',
      response: 'WebhookDelivery',
      status: 202,
      errors: [409],
    },
  ];
}

export const WEBHOOK_OPERATIONS: Operation[] = [
  // Webhooks: a tenant's endpoints (tenant check), and the platform-wide ones, which see every tenant's events
  // and the registry's: for administrators of the platform only, never a tenant-bound token with scope admin.
  ...webhookOperations(W, 'tenant', { read: 'client_read', write: 'manage_webhooks' }, ''),
  ...webhookOperations(PW, 'platform', { read: 'admin', write: 'admin' }, 'Platform'),
];
