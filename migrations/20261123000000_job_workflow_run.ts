import type { Knex } from 'knex';

/**
 * The Temporal run that owns a job. Only that run dispatches and records it, so a second run of the same
 * workflow id (e.g. started after the first closed and its history expired) does nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_jobs', (t) => {
    t.text('workflow_run_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_jobs', (t) => {
    t.dropColumn('workflow_run_id');
  });
}
