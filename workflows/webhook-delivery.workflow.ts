import { failureMessage } from './failure-message';
import { proxyActivities, ActivityFailure, continueAsNew, defineSignal, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { WebhookQueueInput, WEBHOOK_QUEUE_WOKEN, WEBHOOK_TARGET_REFUSED } from './webhook-definitions';

export const queueWoken = defineSignal(WEBHOOK_QUEUE_WOKEN);

// Queue bookkeeping: a few Postgres statements, retried through outages like the job workflow's.
const queue = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Deliveries handled by one run before it continues as new, keeping its history short. */
const DELIVERIES_PER_RUN = 100;

/**
 * Sends the pending deliveries of one (endpoint, ordering key) queue, oldest event first, one at a time: a later
 * event of a job or service waits until the earlier one is delivered or given up. Each delivery is one activity
 * whose retries (exponential backoff over hours) are Temporal's, so they survive worker restarts. The queue lives
 * in Postgres; the run ends when it is empty, and the dispatcher starts a new one for the next event. Every launch
 * signals the run: one woken while it read an empty queue reads again, since the delivery may have been queued after
 * that read (a completion attempted while a signal arrives is refused by Temporal and the task runs again with it).
 */
export async function webhookDeliveryWorkflow(input: WebhookQueueInput): Promise<number> {
  const { retry } = input;
  const { deliverWebhook } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: `${input.attemptTimeoutSeconds + 5} seconds`,
    // The give-up: no attempt starts after this, counted from the first.
    scheduleToCloseTimeout: `${retry.giveUpAfterSeconds} seconds`,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: `${retry.maximumIntervalSeconds} seconds`,
      nonRetryableErrorTypes: [WEBHOOK_TARGET_REFUSED],
    },
  });
  let woken = false;
  setHandler(queueWoken, () => {
    woken = true;
  });
  let handled = 0;
  for (;;) {
    woken = false;
    const deliveryId = await queue.nextWebhookDelivery(input.webhookId, input.orderingKey);
    if (!deliveryId) {
      if (woken) continue;
      return handled;
    }
    try {
      await deliverWebhook(deliveryId);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      await queue.giveUpWebhookDelivery(deliveryId, failureMessage(err));
    }
    handled++;
    if (handled >= DELIVERIES_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof webhookDeliveryWorkflow>(input);
  }
}
