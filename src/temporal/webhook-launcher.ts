import type { Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { WebhookConfig } from '../webhooks/config';
import type { WebhookLauncher } from '../domain/ports';
import { WEBHOOK_QUEUE_WOKEN, type WebhookQueueInput } from '../../workflows/webhook-definitions';

export function webhookWorkflowId(webhookId: string, orderingKey: string): string {
  return `webhook-${webhookId}-${orderingKey}`;
}

/**
 * The one place delivery workflows are started (API: pings and redeliveries; worker: the dispatcher).
 * They carry no search attributes: the job workflows use 8 of the 10 Keyword slots (docs/temporal.md), and the
 * workflow id already names the endpoint and the resource (`WorkflowId STARTS_WITH "webhook-<webhook_id>"`).
 */
export function createWebhookLauncher(options: { client: Client; taskQueue: string; config: WebhookConfig }): WebhookLauncher {
  const { client, taskQueue, config } = options;
  return {
    async launch(queue) {
      const input: WebhookQueueInput = {
        webhookId: queue.webhook_id,
        orderingKey: queue.ordering_key,
        retry: config.retry,
        attemptTimeoutSeconds: config.attemptTimeoutSeconds,
      };
      // Bounded like a job start: the dispatcher's pass (and a shutdown waiting for it) never waits on Temporal for long.
      await client.withDeadline(Date.now() + 5000, () =>
        // An open run reads its queue from Postgres, so it picks up the new delivery itself: signal it (a run that
        // just found the queue empty then reads it again), never a second run beside it (that would break the
        // order). A closed run is followed by a new one: the queue outlives its runs (later events, redeliveries).
        client.workflow.signalWithStart('webhookDeliveryWorkflow', {
          workflowId: webhookWorkflowId(queue.webhook_id, queue.ordering_key),
          taskQueue,
          args: [input],
          signal: WEBHOOK_QUEUE_WOKEN,
          signalArgs: [],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          staticSummary: `webhook deliveries of ${queue.ordering_key} to endpoint ${queue.webhook_id}`,
        }),
      );
    },
  };
}
