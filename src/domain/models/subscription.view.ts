import type { HandlerContracts } from './model.view';

/** Event subscriptions (cascades) as the ports and the repositories (src/db/subscriptions.repository.ts) hand them to the rules. */

export type SubscriptionStatus = 'active' | 'stale' | 'disabled';

export interface SubscriptionRow {
  subscription_id: string;
  source_model_id: string;
  target_model_id: string;
  trigger_event: 'inference_complete' | 'training_complete';
  target_action: 'inference';
  input_source: 'stored' | 'trigger_output';
  input: Record<string, unknown> | null;
  label: string;
  status: SubscriptionStatus;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  /** Who last set the status through the status or delete route, and when (staleness is set by the model update). */
  status_changed_by: string | null;
  status_changed_at: Date | null;
}

/** A subscription with what firing it needs of its target: whether the model exists, its contracts, its newest active version. */
export interface SubscriptionWithTarget extends SubscriptionRow {
  target_exists: boolean;
  target_contracts: HandlerContracts | null;
  target_version: string | null;
}
