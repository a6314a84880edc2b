/** Passed to each delivery workflow, so the schedule is the one in force when the delivery started. */
export interface WebhookRetrySchedule {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalSeconds: number;
  /** Retries stop this long after the first attempt; the delivery fails and the endpoint is marked failing. */
  giveUpAfterSeconds: number;
}

/** One queue of deliveries: an endpoint and an ordering key (a job, a service, an assignment key, ...). */
export interface WebhookQueueInput {
  webhookId: string;
  orderingKey: string;
  retry: WebhookRetrySchedule;
  /** The HTTP request's own deadline; the activity gets a little more for its database writes. */
  attemptTimeoutSeconds: number;
}

/**
 * Signal sent with every launch of a queue's workflow (signal-with-start): a run that has just found its queue
 * empty looks again instead of closing, so a delivery queued while it was closing is never left without a run.
 */
export const WEBHOOK_QUEUE_WOKEN = 'webhookQueueWoken';

/** Failure type of an attempt the safety rules refused (the target resolves to an internal address): not retried. */
export const WEBHOOK_TARGET_REFUSED = 'WebhookTargetRefused';
/** Failure type of an attempt the receiver did not accept (non-2xx, time-out, connection error): retried. */
export const WEBHOOK_ATTEMPT_FAILED = 'WebhookAttemptFailed';
