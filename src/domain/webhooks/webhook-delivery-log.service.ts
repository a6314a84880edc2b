import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as repo from '../../db/webhooks.repository';
import { inTransaction } from '../../db/transaction';
import type { PageRequest } from '../../paging';
import type { Outbox } from './outbox';
import { PING_EVENT_TYPE } from './event-types';
import type { WebhookLauncher } from '../ports';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors';
import { requireEndpoint, type WebhookOwner } from './webhook-access';

/** The deliveries of an endpoint on request: a ping, a redelivery, and the delivery log. */
export function createWebhookDeliveryLog(deps: { knex: Knex; launcher: WebhookLauncher; log: Logger; outbox: Outbox }) {
  const { knex, launcher, outbox } = deps;

  async function requireDelivery(owner: WebhookOwner, webhookId: string, deliveryId: string) {
    await requireEndpoint(knex, owner, webhookId);
    const row = await repo.findDelivery(knex, deliveryId);
    if (!row || row.webhook_id !== webhookId) throw new NotFoundError(`delivery ${deliveryId} not found on webhook ${webhookId}`);
    return row;
  }

  async function present(deliveryId: string) {
    const row = (await repo.findDelivery(knex, deliveryId))!;
    return repo.toDelivery(row, (await repo.attemptsOf(knex, [deliveryId])).get(deliveryId) ?? []);
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
    /** A `webhook.test` event for this endpoint alone, delivered like any other. */
    async ping(owner: WebhookOwner, webhookId: string) {
      const delivery = await inTransaction(knex, async (trx) => {
        const endpoint = await requireEndpoint(trx, owner, webhookId);
        if (endpoint.status === 'disabled') throw new UnprocessableError(`webhook ${webhookId} is disabled; set it active to ping it`);
        const eventId = await outbox(trx).record({
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
      await requireEndpoint(knex, owner, webhookId);
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
