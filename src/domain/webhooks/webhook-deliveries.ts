import type { Knex } from 'knex';
import * as repo from '../../db/webhooks.repository';
import { inTransaction } from '../../db/transaction';
import type { WebhookConfig } from '../../webhooks/config';
import { signatureHeader } from '../../webhooks/signature';
import { postWebhook, type SendResult } from '../../webhooks/sender';
import { targetPolicy } from '../../webhooks/target-policy';
import { renderEventBody } from './event-body';
import { SealedSecretError, type SecretBox } from '../../secrets/secret-box';

export type AttemptOutcome =
  | { outcome: 'delivered' | 'skipped' }
  /** `refused`: the target is not allowed (e.g. it now resolves to a private address); no retry helps. */
  | { outcome: 'failed'; refused: boolean; attempt: number; error: string };

/** The POST of an event, signed with every secret in force. */
function signedRequest(url: string, eventId: string, body: string, secrets: string[], timestamp: number) {
  return {
    url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'model-orchestration-webhooks/1',
      // The event id: the same on every attempt and redelivery, so receivers can deduplicate.
      'webhook-id': eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, eventId, timestamp, body),
    },
  };
}

/** Logs the attempt and moves the delivery on (succeeded, or pending until `nextAttemptAt`), in one transaction. */
async function recordResult(
  knex: Knex,
  webhookId: string,
  attempt: { delivery_id: string; attempt: number; attempted_at: Date },
  result: SendResult,
  nextAttemptAt: () => Date | null,
): Promise<void> {
  const delivered = !result.error;
  await inTransaction(knex, async (trx) => {
    await repo.recordAttempt(
      trx,
      attempt.delivery_id,
      {
        ...attempt,
        status_code: result.statusCode ?? null,
        latency_ms: result.latencyMs,
        error: result.error ?? null,
      },
      { status: delivered ? 'succeeded' : 'pending', nextAttemptAt: nextAttemptAt() },
    );
    if (delivered) await repo.endpointRecovered(trx, webhookId);
  });
}

/**
 * The steps of a webhook delivery workflow, as application functions: the activities (activities/webhooks.ts)
 * call these and add only what is theirs (the retry schedule's next attempt, failure types).
 */
export function createWebhookDeliveries(deps: {
  knex: Knex;
  config: WebhookConfig;
  /** Opens the endpoint's sealed signing secrets for the moment of signing. */
  secrets: SecretBox;
  jobUiUrl: (jobId: string) => string | null;
}) {
  const { knex, config } = deps;
  const policy = targetPolicy(config);

  /** The secrets in force, opened; or why they cannot be. */
  function openSigningSecrets(endpoint: repo.EndpointRow, at: Date): string[] | SealedSecretError {
    try {
      return repo.sealedSigningSecrets(endpoint, at).map((sealed) => deps.secrets.open(sealed));
    } catch (err) {
      if (err instanceof SealedSecretError) return err;
      throw err;
    }
  }

  return {
    async next(webhookId: string, orderingKey: string): Promise<string | null> {
      return (await repo.nextPending(knex, webhookId, orderingKey)) ?? null;
    },

    /**
     * One attempt: sign with every secret in force, POST, log the attempt. A delivery no longer pending, or whose
     * endpoint is gone, is skipped. `nextAttemptAt` says when the retry schedule tries again (null: it gives up).
     */
    async attempt(deliveryId: string, nextAttemptAt: () => Date | null): Promise<AttemptOutcome> {
      const delivery = await repo.findDelivery(knex, deliveryId);
      const endpoint = delivery && delivery.status === 'pending' ? await repo.findEndpoint(knex, delivery.webhook_id) : undefined;
      if (!delivery || !endpoint) return { outcome: 'skipped' };
      if (endpoint.status === 'disabled') {
        await repo.giveUp(knex, deliveryId, 'the endpoint is disabled');
        return { outcome: 'skipped' };
      }
      const event = (await repo.findEvent(knex, delivery.event_id))!;
      const body = renderEventBody(event, deps.jobUiUrl);
      const attempt = await repo.beginAttempt(knex, deliveryId);
      const attemptedAt = new Date();
      const timestamp = Math.floor(attemptedAt.getTime() / 1000);
      // A secret sealed under a key SECRET_KEYS no longer holds cannot sign: a failed attempt, logged, that the
      // retries repeat until the key is back (README, "Secrets at rest").
      const secrets = openSigningSecrets(endpoint, attemptedAt);
      const result: SendResult = Array.isArray(secrets)
        ? await postWebhook(signedRequest(endpoint.url, event.event_id, body, secrets, timestamp), {
            policy,
            timeoutMs: config.attemptTimeoutSeconds * 1000,
          })
        : { latencyMs: 0, error: `cannot sign: ${secrets.message}` };
      const delivered = !result.error;
      await recordResult(knex, endpoint.webhook_id, { delivery_id: deliveryId, attempt, attempted_at: attemptedAt }, result, () =>
        delivered || result.refused ? null : nextAttemptAt(),
      );
      if (delivered) return { outcome: 'delivered' };
      return { outcome: 'failed', refused: Boolean(result.refused), attempt, error: String(result.error) };
    },

    async giveUp(deliveryId: string, reason: string): Promise<void> {
      await repo.giveUp(knex, deliveryId, `gave up: ${reason}`);
    },
  };
}
