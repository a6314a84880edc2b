import type { Knex } from 'knex';

/** Millisecond precision, so keyset cursors built from JS dates match rows exactly. */
function timestamps(t: Knex.CreateTableBuilder, knex: Knex): void {
  t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
  t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
}

/** The whole data model of spec part 2, with its rules in constraints where Postgres can hold them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('clients', (t) => {
    t.text('client_id').primary();
    t.uuid('client_uuid').notNullable().unique();
    t.text('name').notNullable().defaultTo('');
    t.text('status').notNullable().defaultTo('active').checkIn(['active', 'suspended'], 'clients_status_check');
    timestamps(t, knex);
  });

  await knex.schema.createTable('domains', (t) => {
    t.uuid('domain_uuid').primary();
    t.text('client_id').notNullable().references('clients.client_id').onDelete('CASCADE');
    t.text('domain_id').notNullable();
    t.text('status').notNullable().defaultTo('not_ready').checkIn(['not_ready', 'active'], 'domains_status_check');
    timestamps(t, knex);
    t.unique(['client_id', 'domain_id']);
  });

  await knex.schema.createTable('feature_definitions', (t) => {
    t.uuid('domain_uuid').notNullable().references('domains.domain_uuid').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('json_schema').notNullable();
    t.boolean('mandatory').notNullable().defaultTo(false);
    t.integer('position').notNullable();
    t.primary(['domain_uuid', 'name']);
  });

  await knex.schema.createTable('models', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('handlers').notNullable();
    t.jsonb('handler_contracts');
    timestamps(t, knex);
    t.index(['name']);
  });

  await knex.schema.createTable('model_versions', (t) => {
    t.text('model_id').notNullable().references('models.id').onDelete('CASCADE');
    t.text('version').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('pending').checkIn(['pending', 'training', 'active', 'failed'], 'model_versions_status_check');
    t.jsonb('features').notNullable().defaultTo('[]');
    timestamps(t, knex);
    t.primary(['model_id', 'version']);
  });
  // The feature freeze is immutable, whoever writes to the table.
  await knex.raw(`
    CREATE FUNCTION model_versions_freeze_guard() RETURNS trigger AS $$
    BEGIN
      IF NEW.features IS DISTINCT FROM OLD.features THEN
        RAISE EXCEPTION 'the feature freeze of a model version cannot change' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql;
    CREATE TRIGGER model_versions_freeze_guard BEFORE UPDATE ON model_versions
      FOR EACH ROW EXECUTE FUNCTION model_versions_freeze_guard();
  `);

  await knex.schema.createTable('services', (t) => {
    t.uuid('service_uuid').primary();
    t.uuid('domain_uuid').notNullable().references('domains.domain_uuid').onDelete('CASCADE');
    t.text('service_id').notNullable();
    t.text('status').notNullable().checkIn(['in_progress', 'available', 'failed', 'not_found'], 'services_status_check');
    t.timestamp('departure_datetime', { useTz: true }).notNullable();
    t.jsonb('provided_features').notNullable().defaultTo('{}');
    t.jsonb('resolved_features').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.unique(['domain_uuid', 'service_id']);
  });

  await knex.schema.createTable('assignments', (t) => {
    t.uuid('assignment_id').primary();
    t.uuid('domain_uuid').notNullable().references('domains.domain_uuid').onDelete('CASCADE');
    t.uuid('service_uuid').references('services.service_uuid').onDelete('CASCADE');
    t.text('assignment_key').notNullable();
    t.text('model_id').notNullable();
    t.text('model_version').notNullable();
    t.text('status').notNullable().checkIn(['active', 'archived'], 'assignments_status_check');
    t.text('role');
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.foreign(['model_id', 'model_version']).references(['model_id', 'version']).inTable('model_versions');
    t.index(['domain_uuid', 'service_uuid', 'assignment_key', 'created_at']);
  });
  // One active revision per (scope, key), even under concurrent upserts.
  await knex.raw(`CREATE UNIQUE INDEX assignments_one_active_domain_key ON assignments (domain_uuid, assignment_key)
    WHERE status = 'active' AND service_uuid IS NULL`);
  await knex.raw(`CREATE UNIQUE INDEX assignments_one_active_service_key ON assignments (service_uuid, assignment_key)
    WHERE status = 'active' AND service_uuid IS NOT NULL`);

  await knex.schema.createTable('event_subscriptions', (t) => {
    t.uuid('subscription_id').primary();
    t.text('source_model_id').notNullable().references('models.id').onDelete('CASCADE');
    t.text('target_model_id').notNullable().references('models.id').onDelete('CASCADE');
    t.text('trigger_event').notNullable().checkIn(['inference_complete', 'training_complete'], 'event_subscriptions_trigger_check');
    t.text('target_action').notNullable().checkIn(['inference'], 'event_subscriptions_action_check');
    t.text('input_source').notNullable().checkIn(['stored', 'trigger_output'], 'event_subscriptions_source_check');
    t.jsonb('input');
    t.text('label').notNullable().defaultTo('');
    t.text('status').notNullable().defaultTo('active').checkIn(['active', 'stale', 'disabled'], 'event_subscriptions_status_check');
    timestamps(t, knex);
    t.index(['source_model_id', 'trigger_event', 'status']);
  });
  await knex.raw(`ALTER TABLE event_subscriptions ADD CONSTRAINT event_subscriptions_stored_input_check
    CHECK (input_source <> 'stored' OR input IS NOT NULL)`);

  await knex.schema.createTable('model_jobs', (t) => {
    t.text('job_id').primary();
    t.text('model_id').notNullable();
    t.text('model_version').notNullable();
    t.text('job_type').notNullable().checkIn(['inference', 'training'], 'model_jobs_type_check');
    t.text('trigger')
      .notNullable()
      .checkIn(['service_init', 'service_update', 'direct', 'assignment', 'cascade'], 'model_jobs_trigger_check');
    t.text('status')
      .notNullable()
      .defaultTo('pending')
      .checkIn(['pending', 'running', 'success', 'failure', 'timed_out'], 'model_jobs_status_check');
    t.uuid('assignment_id').references('assignments.assignment_id');
    t.text('client_id').references('clients.client_id').onDelete('CASCADE');
    t.uuid('domain_uuid').references('domains.domain_uuid').onDelete('CASCADE');
    t.uuid('service_uuid').references('services.service_uuid').onDelete('CASCADE');
    t.text('source_job_id').references('model_jobs.job_id');
    t.uuid('subscription_id').references('event_subscriptions.subscription_id').onDelete('SET NULL');
    t.integer('cascade_depth').notNullable().defaultTo(0);
    t.jsonb('input');
    t.jsonb('output');
    t.jsonb('error');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('completion_result');
    t.text('idempotency_key');
    t.text('idempotency_owner');
    t.text('idempotency_fingerprint');
    timestamps(t, knex);
    t.timestamp('started_at', { useTz: true, precision: 3 });
    t.timestamp('completed_at', { useTz: true, precision: 3 });
    t.foreign(['model_id', 'model_version']).references(['model_id', 'version']).inTable('model_versions');
    t.index(['model_id', 'model_version', 'created_at']);
    t.index(['client_id', 'created_at']);
    t.index(['status', 'created_at']);
  });
  await knex.raw(`CREATE UNIQUE INDEX model_jobs_idempotency ON model_jobs (idempotency_owner, idempotency_key)
    WHERE idempotency_key IS NOT NULL`);
  await knex.raw(`CREATE UNIQUE INDEX model_jobs_one_cascade_per_subscription ON model_jobs (source_job_id, subscription_id)
    WHERE source_job_id IS NOT NULL AND subscription_id IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('model_jobs');
  await knex.schema.dropTableIfExists('event_subscriptions');
  await knex.schema.dropTableIfExists('assignments');
  await knex.schema.dropTableIfExists('services');
  await knex.raw('DROP TRIGGER IF EXISTS model_versions_freeze_guard ON model_versions');
  await knex.raw('DROP FUNCTION IF EXISTS model_versions_freeze_guard()');
  await knex.schema.dropTableIfExists('model_versions');
  await knex.schema.dropTableIfExists('models');
  await knex.schema.dropTableIfExists('feature_definitions');
  await knex.schema.dropTableIfExists('domains');
  await knex.schema.dropTableIfExists('clients');
}
