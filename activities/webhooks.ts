import type { Knex } from 'knex';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WebhookConfig } from '../src/webhooks/config';
import type { SecretBox } from '../src/secrets/secret-box';
import { createWebhookDeliveries } from '../src/domain/webhooks';
import { classifiedActivities } from './classified';
import { WEBHOOK_ATTEMPT_FAILED, WEBHOOK_TARGET_REFUSED } from '../workflows/webhook-definitions';

export interface WebhookActivityDeps {
  knex: Knex;
  config: WebhookConfig;
  secrets: SecretBox;
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
  const deliveries = createWebhookDeliveries(deps);

  return classifiedActivities({
    nextWebhookDelivery(webhookId: string, orderingKey: string): Promise<string | null> {
      return deliveries.next(webhookId, orderingKey);
    },

    /**
     * One attempt (src/domain/webhooks/webhook-deliveries.ts). Throws a retryable failure for an answer other than 2xx, a
     * non-retryable one when the target is refused.
     */
    async deliverWebhook(deliveryId: string): Promise<'delivered' | 'skipped'> {
      const result = await deliveries.attempt(deliveryId, () => nextAttemptAt(deps.config.retry));
      if (result.outcome !== 'failed') return result.outcome;
      if (result.refused)
        throw ApplicationFailure.create({ type: WEBHOOK_TARGET_REFUSED, message: `target refused: ${result.error}`, nonRetryable: true });
      throw ApplicationFailure.create({ type: WEBHOOK_ATTEMPT_FAILED, message: `attempt ${result.attempt}: ${result.error}` });
    },

    giveUpWebhookDelivery(deliveryId: string, reason: string): Promise<void> {
      return deliveries.giveUp(deliveryId, reason);
    },
  });
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
