import type { Knex } from 'knex';

const TRIGGERS_BEFORE = ['service_init', 'service_update', 'direct', 'assignment', 'cascade', 'rerun'];
const triggerCheck = (triggers: string[]) =>
  `ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_trigger_check CHECK ("trigger" IN (${triggers.map((t) => `'${t}'`).join(', ')}))`;

/**
 * Recurring jobs on Temporal Schedules: the schedules (the row is the definition; Temporal holds the calendar
 * and the paused state), one run per (schedule, nominal time) whether it started a job or was skipped, and the
 * schedule and nominal time on the jobs a schedule started (`trigger = 'schedule'`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedules', (t) => {
    t.text('schedule_id').primary();
    t.text('action').notNullable().checkIn(['training', 'inference', 'service_inference'], 'schedules_action_check');
    // Service schedules belong to a tenant; schedules of a model version (training, direct inference) to none.
    t.text('client_id').references('clients.client_id');
    t.uuid('domain_uuid').references('domains.domain_uuid');
    t.uuid('service_uuid').references('services.service_uuid');
    t.text('model_id');
    t.text('model_version');
    t.jsonb('input');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('description').notNullable().defaultTo('');
    t.jsonb('spec').notNullable();
    t.jsonb('policies').notNullable();
    t.boolean('paused').notNullable().defaultTo(false);
    t.text('note').notNullable().defaultTo('');
    t.integer('revision').notNullable().defaultTo(1);
    t.text('created_by');
    t.text('updated_by');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE schedules ADD CONSTRAINT schedules_target_check CHECK (
    (action = 'service_inference' AND client_id IS NOT NULL AND service_uuid IS NOT NULL AND model_id IS NULL)
    OR (action <> 'service_inference' AND client_id IS NULL AND service_uuid IS NULL AND model_id IS NOT NULL AND model_version IS NOT NULL))`);
  await knex.raw(`CREATE INDEX schedules_client_created ON schedules (client_id, created_at DESC, schedule_id DESC)`);
  await knex.raw(`CREATE INDEX schedules_action_created ON schedules (action, created_at DESC, schedule_id DESC)`);

  await knex.schema.createTable('schedule_runs', (t) => {
    t.text('schedule_id').notNullable().references('schedules.schedule_id').onDelete('CASCADE');
    // The fire's nominal time (Temporal's TemporalScheduledStartTime): a fire is decided once, whoever repeats it.
    t.timestamp('nominal_time', { useTz: true, precision: 3 }).notNullable();
    t.text('outcome').notNullable().checkIn(['started', 'skipped'], 'schedule_runs_outcome_check');
    t.text('job_id');
    t.text('reason');
    t.text('workflow_id');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.primary(['schedule_id', 'nominal_time']);
  });

  await knex.schema.alterTable('model_jobs', (t) => {
    t.text('schedule_id');
    t.timestamp('scheduled_at', { useTz: true, precision: 3 });
  });
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_trigger_check`);
  await knex.raw(triggerCheck([...TRIGGERS_BEFORE, 'schedule']));
  // One job per fire, also in the database: the run row is the first guard, this the second.
  await knex.raw(`CREATE UNIQUE INDEX model_jobs_schedule_fire ON model_jobs (schedule_id, scheduled_at) WHERE schedule_id IS NOT NULL`);
  await knex.raw(
    `CREATE INDEX model_jobs_schedule_created ON model_jobs (schedule_id, created_at DESC, job_id DESC) WHERE schedule_id IS NOT NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS model_jobs_schedule_created');
  await knex.raw('DROP INDEX IF EXISTS model_jobs_schedule_fire');
  await knex.raw(`DELETE FROM model_jobs WHERE "trigger" = 'schedule'`);
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_trigger_check`);
  await knex.raw(triggerCheck(TRIGGERS_BEFORE));
  await knex.schema.alterTable('model_jobs', (t) => {
    t.dropColumns('schedule_id', 'scheduled_at');
  });
  await knex.schema.dropTable('schedule_runs');
  await knex.schema.dropTable('schedules');
}
