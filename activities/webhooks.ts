import type { Knex } from 'knex';
import { ApplicationFailure, Context } from '@temporalio/activity';
import * as repo from '../src/db/webhooks.repository';
import { inTransaction } from '../src/db/transaction';
import type { WebhookConfig } from '../src/webhooks/config';
import { signatureHeader } from '../src/webhooks/signature';
import { postWebhook } from '../src/webhooks/sender';
import { targetPolicy } from '../src/webhooks/target-policy';
import { renderEventBody } from '../src/webhooks/event-body';
import { classifiedActivities } from './classified';
import { WEBHOOK_ATTEMPT_FAILED, WEBHOOK_TARGET_REFUSED } from '../workflows/webhook-definitions';

export interface WebhookActivityDeps {
  knex: Knex;
  config: WebhookConfig;
  /** The Temporal UI link of a job, as the API shows it in `temporal_url`. */
  jobUiUrl: (jobId: string) => string | null;
}

/** When Temporal will try again after this failed attempt, or null when the give-up comes first. */
function nextAttemptAt(retry: WebhookConfig['retry']): Date | null {
  const info = Context.current().info;
  const backoff = Math.min(retry.initialIntervalMs * retry.backoffCoefficient ** (info.attempt - 1), retry.maximumIntervalSeconds * 1000);
  const next = Date.now() + backoff;
  return next > info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs ? null : new Date(next);
}

/** The delivery workflow's side effects: reading its queue, one signed POST per attempt, the give-up. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { knex, config } = deps;
  const policy = targetPolicy(config);

  return classifiedActivities({
    async nextWebhookDelivery(webhookId: string, orderingKey: string): Promise<string | null> {
      return (await repo.nextPending(knex, webhookId, orderingKey)) ?? null;
    },

    /**
     * One attempt: sign with every secret in force, POST, log the attempt. Throws a retryable failure for an
     * answer other than 2xx, a non-retryable one when the target is refused (e.g. it now resolves to a private
     * address). A delivery no longer pending, or whose endpoint is gone, is skipped.
     */
    async deliverWebhook(deliveryId: string): Promise<'delivered' | 'skipped'> {
      const delivery = await repo.findDelivery(knex, deliveryId);
      const endpoint = delivery && delivery.status === 'pending' ? await repo.findEndpoint(knex, delivery.webhook_id) : undefined;
      if (!delivery || !endpoint) return 'skipped';
      if (endpoint.status === 'disabled') {
        await repo.giveUp(knex, deliveryId, 'the endpoint is disabled');
        return 'skipped';
      }
      const event = (await repo.findEvent(knex, delivery.event_id))!;
      const body = renderEventBody(event, deps.jobUiUrl);
      const attempt = await repo.beginAttempt(knex, deliveryId);
      const attemptedAt = new Date();
      const timestamp = Math.floor(attemptedAt.getTime() / 1000);
      const result = await postWebhook({
        url: endpoint.url,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'model-orchestration-webhooks/1',
          // The event id: the same on every attempt and redelivery, so receivers can deduplicate.
          'webhook-id': event.event_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(repo.signingSecrets(endpoint, attemptedAt), event.event_id, timestamp, body),
        },
      }, { policy, timeoutMs: config.attemptTimeoutSeconds * 1000 });
      const delivered = !result.error;
      await inTransaction(knex, async (trx) => {
        await repo.recordAttempt(trx, deliveryId, {
          delivery_id: deliveryId, attempt, attempted_at: attemptedAt, status_code: result.statusCode ?? null, latency_ms: result.latencyMs, error: result.error ?? null,
        }, { status: delivered ? 'succeeded' : 'pending', nextAttemptAt: delivered || result.refused ? null : nextAttemptAt(config.retry) });
        if (delivered) await repo.endpointRecovered(trx, endpoint.webhook_id);
      });
      if (delivered) return 'delivered';
      if (result.refused) throw ApplicationFailure.create({ type: WEBHOOK_TARGET_REFUSED, message: `target refused: ${result.error}`, nonRetryable: true });
      throw ApplicationFailure.create({ type: WEBHOOK_ATTEMPT_FAILED, message: `attempt ${attempt}: ${result.error}` });
    },

    async giveUpWebhookDelivery(deliveryId: string, reason: string): Promise<void> {
      await repo.giveUp(knex, deliveryId, `gave up: ${reason}`);
    },
  });
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
