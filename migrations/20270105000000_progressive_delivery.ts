import type { Knex } from 'knex';

const TRIGGERS_BEFORE = ['service_init', 'service_update', 'direct', 'assignment', 'cascade', 'rerun', 'schedule'];
const triggerCheck = (triggers: string[]) =>
  `ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_trigger_check CHECK ("trigger" IN (${triggers.map((t) => `'${t}'`).join(', ')}))`;

/**
 * Progressive delivery of model versions: shadow jobs (`trigger = 'shadow'`, one per primary job and shadow
 * assignment), why a revision left force (`status_reason`: promoted, rolled back, the guardrail), and one active
 * canary per primary key of a domain.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_trigger_check`);
  await knex.raw(triggerCheck([...TRIGGERS_BEFORE, 'shadow']));
  // A primary job's shadow is created once per shadow assignment revision, whatever retries the outcome step makes.
  await knex.raw(`CREATE UNIQUE INDEX model_jobs_shadow_once ON model_jobs (source_job_id, assignment_id) WHERE "trigger" = 'shadow'`);
  await knex.schema.alterTable('assignments', (t) => {
    t.text('status_reason');
  });
  await knex.raw(`CREATE UNIQUE INDEX assignments_one_canary_per_primary ON assignments (domain_uuid, (settings->>'primary_key'))
    WHERE status = 'active' AND role = 'canary' AND service_uuid IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS assignments_one_canary_per_primary');
  await knex.schema.alterTable('assignments', (t) => {
    t.dropColumn('status_reason');
  });
  await knex.raw('DROP INDEX IF EXISTS model_jobs_shadow_once');
  await knex.raw(`DELETE FROM model_jobs WHERE "trigger" = 'shadow'`);
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_trigger_check`);
  await knex.raw(triggerCheck(TRIGGERS_BEFORE));
}
