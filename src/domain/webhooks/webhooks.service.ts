import type { Schemas } from '../../openapi/types';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as repo from '../../db/webhooks.repository';
import { inTransaction } from '../../db/transaction';
import { mapPage, type PageRequest } from '../../paging';
import { requireClient } from '../common';
import { newSecret } from '../../webhooks/signature';
import { checkTarget, TargetPolicy, TargetRefused } from '../../webhooks/target-policy';
import { REGISTRY_EVENT_TYPES } from './event-types';
import type { WebhookLauncher } from '../ports';
import type { SecretBox } from '../../secrets/secret-box';
import { UnprocessableError } from '../../errors';
import { requireEndpoint, type WebhookOwner } from './webhook-access';
import { createWebhookDeliveryLog } from './webhook-delivery-log.service';
import type { Outbox } from './outbox';

export type WebhookBody = Schemas['CreateWebhookRequest'];
export type UpdateWebhookBody = Schemas['UpdateWebhookRequest'];

/** Registry events go to platform-wide endpoints only, and the url must pass the target policy (422). */
async function checkBody(policy: TargetPolicy, owner: WebhookOwner, body: Partial<WebhookBody>) {
  const registry = (body.event_types ?? []).filter((t) => REGISTRY_EVENT_TYPES.includes(t));
  if (owner !== null && registry.length) {
    throw new UnprocessableError(
      `event_types: ${registry.join(', ')} are model registry events; only platform-wide endpoints (/v2/webhooks) receive them`,
    );
  }
  if (body.url === undefined) return;
  try {
    await checkTarget(body.url, policy);
  } catch (err) {
    if (err instanceof TargetRefused) throw new UnprocessableError(`url refused: ${err.message}`);
    throw err;
  }
}

export function createWebhooksService(deps: {
  knex: Knex;
  policy: TargetPolicy;
  launcher: WebhookLauncher;
  secretGraceSeconds: number;
  /** Seals the signing secrets before they are stored; the plain secret is in one answer only. */
  secrets: SecretBox;
  log: Logger;
  /** Where the test pings' events are written. */
  outbox: Outbox;
}) {
  const { knex } = deps;

  return {
    /** The secret is in this answer only (and in a rotation's). */
    async create(owner: WebhookOwner, body: WebhookBody) {
      if (owner !== null) await requireClient(knex, owner);
      await checkBody(deps.policy, owner, body);
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

    get: async (owner: WebhookOwner, webhookId: string) => repo.toWebhook(await requireEndpoint(knex, owner, webhookId)),

    /** `status: active` also clears `failing` (the caller says the receiver is fixed). */
    async update(owner: WebhookOwner, webhookId: string, body: UpdateWebhookBody) {
      await requireEndpoint(knex, owner, webhookId);
      await checkBody(deps.policy, owner, body);
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
      const row = await requireEndpoint(knex, owner, webhookId);
      await repo.deleteEndpoint(knex, webhookId);
      return repo.toWebhook(row);
    },

    /** A new secret; the previous one keeps signing beside it for the grace period (a second rotation ends that early). */
    async rotateSecret(owner: WebhookOwner, webhookId: string) {
      return inTransaction(knex, async (trx) => {
        const row = await requireEndpoint(trx, owner, webhookId, true);
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

    ...createWebhookDeliveryLog(deps),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
