/** What the application needs to have a webhook queue delivered; src/temporal/webhook-launcher.ts runs it on Temporal. */

export interface WebhookQueue {
  webhook_id: string;
  ordering_key: string;
}

export interface WebhookLauncher {
  /** Makes sure the queue's delivery workflow runs: starts one, or leaves the open one to find the new delivery. */
  launch(queue: WebhookQueue): Promise<void>;
}
