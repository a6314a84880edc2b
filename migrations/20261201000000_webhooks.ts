import type { Knex } from 'knex';

/**
 * Outbound webhooks (docs/webhooks.md): endpoints, the outbox of events written in the transaction of the change
 * they describe, one delivery per (endpoint, event), and the log of each delivery's attempts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('webhook_id').primary();
    // null: a platform-wide endpoint, which receives the events of every tenant and of the model registry.
    t.text('client_id').references('clients.client_id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.specificType('event_types', 'text[]').notNullable();
    t.jsonb('filter').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('active').checkIn(['active', 'disabled', 'failing'], 'webhook_endpoints_status_check');
    // Kept readable: every delivery is signed with it. Returned to callers only on creation and rotation.
    t.text('secret').notNullable();
    t.text('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true, precision: 3 });
    t.timestamp('failing_since', { useTz: true, precision: 3 });
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    t.index(['client_id', 'created_at']);
  });

  await knex.schema.createTable('webhook_events', (t) => {
    t.uuid('event_id').primary();
    // Insertion order; events of one resource are written under that resource's row lock, so seq orders them.
    t.bigIncrements('seq', { primaryKey: false });
    t.text('type').notNullable();
    t.text('client_id');
    t.text('domain_id');
    t.text('model_id');
    t.text('ordering_key').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('occurred_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    // Set when the dispatcher has turned the event into deliveries; null rows are the outbox.
    t.timestamp('dispatched_at', { useTz: true, precision: 3 });
    // A test ping is meant for one endpoint only.
    t.uuid('target_webhook_id');
  });
  await knex.raw('CREATE INDEX webhook_events_outbox ON webhook_events (seq) WHERE dispatched_at IS NULL');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('delivery_id').primary();
    t.uuid('webhook_id').notNullable().references('webhook_endpoints.webhook_id').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('webhook_events.event_id').onDelete('CASCADE');
    t.bigInteger('event_seq').notNullable();
    t.text('ordering_key').notNullable();
    t.text('status').notNullable().defaultTo('pending').checkIn(['pending', 'succeeded', 'failed'], 'webhook_deliveries_status_check');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.integer('last_latency_ms');
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true, precision: 3 });
    // When it (last) became pending: creation or a redelivery. A pending delivery with no attempt since is
    // re-launched by the dispatcher, so a lost workflow start never strands it.
    t.timestamp('queued_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    t.timestamp('last_attempt_at', { useTz: true, precision: 3 });
    t.timestamp('completed_at', { useTz: true, precision: 3 });
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    // At most one delivery per endpoint and event: fanning out twice (a retried dispatcher pass) adds nothing.
    t.unique(['webhook_id', 'event_id']);
    t.index(['webhook_id', 'created_at']);
  });
  await knex.raw(
    "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, ordering_key, event_seq) WHERE status = 'pending'",
  );

  await knex.schema.createTable('webhook_delivery_attempts', (t) => {
    t.bigIncrements('attempt_id');
    t.uuid('delivery_id').notNullable().references('webhook_deliveries.delivery_id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.timestamp('attempted_at', { useTz: true, precision: 3 }).notNullable();
    t.integer('status_code');
    t.integer('latency_ms').notNullable();
    t.text('error');
    t.index(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_delivery_attempts');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_events');
  await knex.schema.dropTable('webhook_endpoints');
}
