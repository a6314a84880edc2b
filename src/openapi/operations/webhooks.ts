import type { Operation, Tenancy } from './operation';
import { W, PW, statusFilter } from './paths';

/** Where one set of webhook routes lives and who may use it; `kind` names the platform-wide set ("createPlatformWebhook"). */
interface WebhookScope {
  base: string;
  /** The path of one endpoint. */
  one: string;
  tenancy: Tenancy;
  perm: { read: Operation['permission']; write: Operation['permission'] };
  kind: string;
}

/** Creating, listing, reading, changing and deleting endpoints. */
function endpointOperations(s: WebhookScope): Operation[] {
  return [
    {
      id: `create${s.kind}Webhook`,
      method: 'POST',
      path: s.base,
      permission: s.perm.write,
      tenancy: s.tenancy,
      summary: `Create ${s.kind ? 'a platform-wide' : "a tenant's"} webhook endpoint; the answer holds its signing secret, once`,
      body: 'CreateWebhookRequest',
      response: 'WebhookWithSecret',
      status: 201,
      errors: [422],
    },
    {
      id: `list${s.kind}Webhooks`,
      method: 'GET',
      path: s.base,
      permission: s.perm.read,
      tenancy: s.tenancy,
      summary: `List ${s.kind ? 'the platform-wide' : "a tenant's"} webhook endpoints`,
      response: 'Webhook',
      status: 200,
      paginated: true,
      query: statusFilter(['active', 'disabled', 'failing']),
    },
    {
      id: `get${s.kind}Webhook`,
      method: 'GET',
      path: s.one,
      permission: s.perm.read,
      tenancy: s.tenancy,
      summary: 'Read a webhook endpoint (never its secret)',
      response: 'Webhook',
      status: 200,
    },
    {
      id: `update${s.kind}Webhook`,
      method: 'PUT',
      path: s.one,
      permission: s.perm.write,
      tenancy: s.tenancy,
      summary: 'Change a webhook endpoint, or disable or re-activate it',
      body: 'UpdateWebhookRequest',
      response: 'Webhook',
      status: 200,
      errors: [422],
    },
    {
      id: `delete${s.kind}Webhook`,
      method: 'DELETE',
      path: s.one,
      permission: s.perm.write,
      tenancy: s.tenancy,
      summary: 'Delete a webhook endpoint and its delivery log',
      response: 'Webhook',
      status: 200,
    },
  ];
}

/** What an endpoint's owner does to it: a new secret, a test event. */
function endpointActions(s: WebhookScope): Operation[] {
  return [
    {
      id: `rotate${s.kind}WebhookSecret`,
      method: 'POST',
      path: `${s.one}/rotate-secret`,
      permission: s.perm.write,
      tenancy: s.tenancy,
      summary: 'Replace the signing secret; the old one keeps signing beside it for a grace period',
      response: 'WebhookSecret',
      status: 200,
    },
    {
      id: `ping${s.kind}Webhook`,
      method: 'POST',
      path: `${s.one}/ping`,
      permission: s.perm.write,
      tenancy: s.tenancy,
      summary: 'Send a webhook.test event to this endpoint',
      response: 'WebhookDelivery',
      status: 202,
      errors: [422],
    },
  ];
}

/** The delivery log of an endpoint and its redelivery. */
function deliveryOperations(s: WebhookScope): Operation[] {
  return [
    {
      id: `list${s.kind}WebhookDeliveries`,
      method: 'GET',
      path: `${s.one}/deliveries`,
      permission: s.perm.read,
      tenancy: s.tenancy,
      summary: 'The delivery log of an endpoint, newest first: attempts, status codes, latency, next retry',
      response: 'WebhookDelivery',
      status: 200,
      paginated: true,
      query: statusFilter(['pending', 'succeeded', 'failed']),
    },
    {
      id: `get${s.kind}WebhookDelivery`,
      method: 'GET',
      path: `${s.one}/deliveries/{delivery_id}`,
      permission: s.perm.read,
      tenancy: s.tenancy,
      summary: 'One delivery with its attempts',
      response: 'WebhookDelivery',
      status: 200,
    },
    {
      id: `redeliver${s.kind}WebhookDelivery`,
      method: 'POST',
      path: `${s.one}/deliveries/{delivery_id}/redeliver`,
      permission: s.perm.write,
      tenancy: s.tenancy,
      summary: 'Send a succeeded or failed delivery again (same event id)',
      response: 'WebhookDelivery',
      status: 202,
      errors: [409],
    },
  ];
}

/** The ten webhook routes under `base`. */
function webhookOperations(base: string, tenancy: Tenancy, perm: WebhookScope['perm'], kind: string): Operation[] {
  const scope = { base, one: `${base}/{webhook_id}`, tenancy, perm, kind };
  return [...endpointOperations(scope), ...endpointActions(scope), ...deliveryOperations(scope)];
}

export const WEBHOOK_OPERATIONS: Operation[] = [
  // Webhooks: a tenant's endpoints (tenant check), and the platform-wide ones, which see every tenant's events
  // and the registry's: for administrators of the platform only, never a tenant-bound token with scope admin.
  ...webhookOperations(W, 'tenant', { read: 'client_read', write: 'manage_webhooks' }, ''),
  ...webhookOperations(PW, 'platform', { read: 'admin', write: 'admin' }, 'Platform'),
];
