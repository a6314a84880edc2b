import type { Schemas } from '../../openapi/types';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as repo from '../../db/webhooks.repository';
import { inTransaction } from '../../db/transaction';
import { mapPage, type PageRequest } from '../../paging';
import { requireClient } from '../common';
import { recordEvent } from './outbox';
import { newSecret } from '../../webhooks/signature';
import { checkTarget, TargetPolicy, TargetRefused } from '../../webhooks/target-policy';
import { PING_EVENT_TYPE, REGISTRY_EVENT_TYPES } from './event-types';
import type { WebhookLauncher } from '../ports';
import type { SecretBox } from '../../secrets/secret-box';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors';

/** Whose endpoints: a tenant's, or (null) the platform-wide ones. */
export type WebhookOwner = string | null;

export type WebhookBody = Schemas['CreateWebhookRequest'];
export type UpdateWebhookBody = Schemas['UpdateWebhookRequest'];

export function createWebhooksService(deps: {
  knex: Knex;
  policy: TargetPolicy;
  launcher: WebhookLauncher;
  secretGraceSeconds: number;
  /** Seals the signing secrets before they are stored; the plain secret is in one answer only. */
  secrets: SecretBox;
  log: Logger;
}) {
  const { knex, launcher } = deps;

  /** Another owner's endpoint is a 404, like a missing one: ids of other tenants cannot be probed. */
  async function requireEndpoint(owner: WebhookOwner, webhookId: string, db: Knex | Knex.Transaction = knex, lock = false) {
    const row = await repo.findEndpoint(db, webhookId, lock);
    if (!row || row.client_id !== owner) throw new NotFoundError(`webhook ${webhookId} not found`);
    return row;
  }

  async function requireDelivery(owner: WebhookOwner, webhookId: string, deliveryId: string) {
    await requireEndpoint(owner, webhookId);
    const row = await repo.findDelivery(knex, deliveryId);
    if (!row || row.webhook_id !== webhookId) throw new NotFoundError(`delivery ${deliveryId} not found on webhook ${webhookId}`);
    return row;
  }

  async function present(deliveryId: string) {
    const row = (await repo.findDelivery(knex, deliveryId))!;
    return repo.toDelivery(row, (await repo.attemptsOf(knex, [deliveryId])).get(deliveryId) ?? []);
  }

  async function checkBody(owner: WebhookOwner, body: Partial<WebhookBody>) {
    const registry = (body.event_types ?? []).filter((t) => REGISTRY_EVENT_TYPES.includes(t));
    if (owner !== null && registry.length) {
      throw new UnprocessableError(
        `event_types: ${registry.join(', ')} are model registry events; only platform-wide endpoints (/v2/webhooks) receive them`,
      );
    }
    if (body.url === undefined) return;
    try {
      await checkTarget(body.url, deps.policy);
    } catch (err) {
      if (err instanceof TargetRefused) throw new UnprocessableError(`url refused: ${err.message}`);
      throw err;
    }
  }

  /** After the commit: a start that fails now is made by the dispatcher's check for queues with no attempt. */
  async function launch(queue: repo.DeliveryRow) {
    try {
      await launcher.launch(queue);
    } catch (err) {
      deps.log.warn({ err, deliveryId: queue.delivery_id }, 'could not start the delivery workflow now; the dispatcher will');
    }
  }

  return {
    /** The secret is in this answer only (and in a rotation's). */
    async create(owner: WebhookOwner, body: WebhookBody) {
      if (owner !== null) await requireClient(knex, owner);
      await checkBody(owner, body);
      const secret = newSecret();
      const row = await repo.insertEndpoint(knex, {
        client_id: owner,
        url: body.url,
        description: body.description ?? '',
        event_types: [...new Set(body.event_types)],
        filter: body.filter ?? {},
        secret_sealed: deps.secrets.seal(secret),
      });
      return { ...repo.toWebhook(row), secret };
    },

    async list(owner: WebhookOwner, page: PageRequest, status?: string) {
      if (owner !== null) await requireClient(knex, owner);
      return mapPage(await repo.listEndpoints(knex, owner, page, status), repo.toWebhook);
    },

    get: async (owner: WebhookOwner, webhookId: string) => repo.toWebhook(await requireEndpoint(owner, webhookId)),

    /** `status: active` also clears `failing` (the caller says the receiver is fixed). */
    async update(owner: WebhookOwner, webhookId: string, body: UpdateWebhookBody) {
      await requireEndpoint(owner, webhookId);
      await checkBody(owner, body);
      const changes: Parameters<typeof repo.updateEndpoint>[2] = {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.event_types !== undefined ? { event_types: [...new Set(body.event_types)] } : {}),
        ...(body.filter !== undefined ? { filter: body.filter } : {}),
        ...(body.status !== undefined ? { status: body.status, failing_since: null } : {}),
      };
      return repo.toWebhook(await repo.updateEndpoint(knex, webhookId, changes));
    },

    /** Deletes the endpoint and its delivery log; its running delivery workflows find nothing left to send. */
    async remove(owner: WebhookOwner, webhookId: string) {
      const row = await requireEndpoint(owner, webhookId);
      await repo.deleteEndpoint(knex, webhookId);
      return repo.toWebhook(row);
    },

    /** A new secret; the previous one keeps signing beside it for the grace period (a second rotation ends that early). */
    async rotateSecret(owner: WebhookOwner, webhookId: string) {
      return inTransaction(knex, async (trx) => {
        const row = await requireEndpoint(owner, webhookId, trx, true);
        const expires = new Date(Date.now() + deps.secretGraceSeconds * 1000);
        const secret = newSecret();
        await repo.updateEndpoint(trx, webhookId, {
          secret_sealed: deps.secrets.seal(secret),
          previous_secret_sealed: row.secret_sealed,
          previous_secret_expires_at: expires,
        });
        return { webhook_id: webhookId, secret, previous_secret_expires_at: expires.toISOString() };
      });
    },

    /** A `webhook.test` event for this endpoint alone, delivered like any other. */
    async ping(owner: WebhookOwner, webhookId: string) {
      const delivery = await inTransaction(knex, async (trx) => {
        const endpoint = await requireEndpoint(owner, webhookId, trx);
        if (endpoint.status === 'disabled') throw new UnprocessableError(`webhook ${webhookId} is disabled; set it active to ping it`);
        const eventId = await recordEvent(trx, {
          type: PING_EVENT_TYPE,
          client_id: owner,
          ordering_key: `ping:${webhookId}`,
          target_webhook_id: webhookId,
          data: { webhook_id: webhookId, message: 'a test event sent on request' },
        });
        await repo.markDispatched(trx, [eventId]);
        const [row] = await repo.insertDeliveries(trx, (await repo.findEvent(trx, eventId))!, [webhookId]);
        return row;
      });
      // Read before the start, so the answer is the queued delivery, not a race with its first attempt.
      const queued = await present(delivery.delivery_id);
      await launch(delivery);
      return queued;
    },

    async listDeliveries(owner: WebhookOwner, webhookId: string, page: PageRequest, status?: string) {
      await requireEndpoint(owner, webhookId);
      return repo.deliveryPage(knex, webhookId, page, status);
    },

    async getDelivery(owner: WebhookOwner, webhookId: string, deliveryId: string) {
      await requireDelivery(owner, webhookId, deliveryId);
      return present(deliveryId);
    },

    /** Sends a finished delivery again: same event, same `webhook-id`; its attempts continue the log. */
    async redeliver(owner: WebhookOwner, webhookId: string, deliveryId: string) {
      const row = await requireDelivery(owner, webhookId, deliveryId);
      if (!(await repo.requeue(knex, deliveryId)))
        throw new ConflictError(`delivery ${deliveryId} is still ${row.status}; redeliver it once it succeeded or failed`);
      const queued = await present(deliveryId);
      await launch(row);
      return queued;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
