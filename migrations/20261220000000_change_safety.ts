import type { Knex } from 'knex';

/**
 * Change safety: when each assignment revision was in force and who made it, and who created or last
 * moved versions and subscriptions.
 *
 * An assignment revision is in force from `activated_at` (null for a revision written `archived`, which retires
 * its key and was never in force) until `archived_at` (null while active). Existing rows are backfilled from
 * their timestamps: a revision that is active now, or that changed after it was written (it was archived by a
 * later upsert), was in force from its created_at; archived rows were archived at their updated_at.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assignments', (t) => {
    t.timestamp('activated_at', { useTz: true, precision: 3 });
    t.timestamp('archived_at', { useTz: true, precision: 3 });
    t.text('created_by');
    t.text('archived_by');
  });
  await knex.raw(`UPDATE assignments SET activated_at = created_at WHERE status = 'active' OR updated_at > created_at`);
  await knex.raw(`UPDATE assignments SET archived_at = updated_at WHERE status = 'archived'`);
  // "Which revision was in force at T" walks (scope, key) by time.
  await knex.raw(`CREATE INDEX assignments_in_force ON assignments (domain_uuid, assignment_key, activated_at)
    WHERE activated_at IS NOT NULL`);

  await knex.schema.alterTable('model_versions', (t) => {
    t.text('created_by');
    t.text('status_changed_by');
    t.timestamp('status_changed_at', { useTz: true, precision: 3 });
  });
  await knex.schema.alterTable('event_subscriptions', (t) => {
    t.text('created_by');
    t.text('status_changed_by');
    t.timestamp('status_changed_at', { useTz: true, precision: 3 });
  });
  // Jobs already name the assignment revision they ran under (model_jobs.assignment_id); finding them by it is one index.
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS model_jobs_assignment ON model_jobs (assignment_id, created_at) WHERE assignment_id IS NOT NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS model_jobs_assignment');
  await knex.schema.alterTable('event_subscriptions', (t) => {
    t.dropColumns('created_by', 'status_changed_by', 'status_changed_at');
  });
  await knex.schema.alterTable('model_versions', (t) => {
    t.dropColumns('created_by', 'status_changed_by', 'status_changed_at');
  });
  await knex.raw('DROP INDEX IF EXISTS assignments_in_force');
  await knex.schema.alterTable('assignments', (t) => {
    t.dropColumns('activated_at', 'archived_at', 'created_by', 'archived_by');
  });
}
