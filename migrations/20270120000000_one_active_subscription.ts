import type { Knex } from 'knex';

/**
 * At most one active subscription per (source, event, target, action, input): an identical second one would start the
 * target twice on every completion. Identical active ones made before are left with the oldest active, the later ones
 * disabled (their status change names the migration), so the index can be built.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE event_subscriptions s SET status = 'disabled', updated_at = now(), status_changed_at = now(),
      status_changed_by = 'migration: identical to an older active subscription'
    WHERE s.status = 'active' AND EXISTS (
      SELECT 1 FROM event_subscriptions o
      WHERE o.status = 'active' AND o.source_model_id = s.source_model_id AND o.trigger_event = s.trigger_event
        AND o.target_model_id = s.target_model_id AND o.target_action = s.target_action
        AND o.input_source = s.input_source AND o.input IS NOT DISTINCT FROM s.input
        AND (o.created_at, o.subscription_id) < (s.created_at, s.subscription_id))`);
  await knex.raw(`
    CREATE UNIQUE INDEX event_subscriptions_one_active ON event_subscriptions
      (source_model_id, trigger_event, target_model_id, target_action, input_source, coalesce(input, 'null'::jsonb))
    WHERE status = 'active'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX event_subscriptions_one_active');
}
