import type { Knex } from 'knex';

/**
 * Outcomes recorded from a completion report (the `completeJob` update) that Temporal has not yet confirmed holding.
 * The workflow records such an outcome in a local activity of the workflow task that received the update; until
 * that task is persisted the update exists only in the server's memory, and a server crash loses it while the
 * record stands. A row here is removed once Temporal answers the update; the reconciler delivers the recorded
 * outcome again to the workflow of any row left older than a few seconds (docs/temporal.md, "Completions Temporal
 * lost"), and a delivery no workflow answered waits as long again (`attempted_at`), behind the others.
 * A table of its own, with no index but its key: rows come and go at every completion, and model_jobs keeps its
 * indexes unchurned.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('unconfirmed_outcomes', (t) => {
    t.text('job_id').primary().references('job_id').inTable('model_jobs').onDelete('CASCADE');
    t.timestamp('recorded_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('attempted_at', { useTz: true, precision: 3 });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('unconfirmed_outcomes');
}
