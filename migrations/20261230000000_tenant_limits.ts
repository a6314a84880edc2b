import type { Knex } from 'knex';

/**
 * Tenants cannot starve each other: per-tenant limit overrides, token buckets shared by every API replica,
 * a job's priority, jobs held while their tenant is at its running-job cap, and the notification that frees a slot.
 */
export async function up(knex: Knex): Promise<void> {
  // The override of the configured defaults a platform administrator set; null: the defaults.
  await knex.schema.alterTable('clients', (t) => {
    t.jsonb('limits');
  });
  await knex.schema.alterTable('model_jobs', (t) => {
    // Temporal's priority key, 1 (first) to 5: the request's, or its trigger's default (src/domain/jobs/launch/priorities.ts). Rows
    // written without one (cascade jobs, and every job before this change) take 3, the default of cascades.
    t.smallint('priority').notNullable().defaultTo(3).checkBetween([1, 5], 'model_jobs_priority_check');
    // Set while a pending job waits for its tenant's running jobs to drop under the cap; its workflow is not started.
    t.text('queued_reason');
  });
  // The cap counts a tenant's started, unfinished jobs; the index holds only those, so the count stays small.
  await knex.raw(`CREATE INDEX model_jobs_tenant_active ON model_jobs (client_id)
    WHERE status IN ('pending', 'running') AND queued_reason IS NULL`);
  // Held jobs, released in priority order, oldest first.
  await knex.raw(`CREATE INDEX model_jobs_held ON model_jobs (client_id, priority, created_at)
    WHERE queued_reason IS NOT NULL`);

  // One row per bucket (`jobs:tenant:<id>`, `requests:caller:<subject>`): the tokens left when it was last refilled.
  // Every decision is one upsert of its row (src/db/rate-limits.repository.ts), so all replicas share the bucket.
  await knex.schema.createTable('rate_limit_buckets', (t) => {
    t.text('bucket').primary();
    t.double('tokens').notNullable();
    t.timestamp('refilled_at', { useTz: true, precision: 6 }).notNullable();
    // Whether the last decision took a token: the upsert can only return the row as it leaves it.
    t.boolean('allowed').notNullable();
  });

  // A tenant's job reaching a final status frees a slot: the worker's releaser starts its next held job.
  await knex.raw(`
    CREATE FUNCTION model_jobs_notify_slot() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('model_job_slot', NEW.client_id);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER model_jobs_notify_slot AFTER UPDATE OF status ON model_jobs FOR EACH ROW
    WHEN (NEW.client_id IS NOT NULL AND NEW.status IN ('success', 'failure', 'timed_out', 'cancelled')
      AND OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION model_jobs_notify_slot()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS model_jobs_notify_slot ON model_jobs`);
  await knex.raw(`DROP FUNCTION IF EXISTS model_jobs_notify_slot()`);
  await knex.schema.dropTableIfExists('rate_limit_buckets');
  await knex.raw('DROP INDEX IF EXISTS model_jobs_held');
  await knex.raw('DROP INDEX IF EXISTS model_jobs_tenant_active');
  await knex.schema.alterTable('model_jobs', (t) => {
    t.dropColumns('priority', 'queued_reason');
  });
  await knex.schema.alterTable('clients', (t) => {
    t.dropColumn('limits');
  });
}
