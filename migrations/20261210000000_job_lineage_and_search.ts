import type { Knex } from 'knex';

const STATUSES_BEFORE = ['pending', 'running', 'success', 'failure', 'timed_out'];
const TRIGGERS_BEFORE = ['service_init', 'service_update', 'direct', 'assignment', 'cascade'];

/**
 * Jobs as users run them: lineage (root job, with the existing source job, subscription and depth), re-runs,
 * cancellation (status `cancelled`, who and why, the ECS task to stop), the indexes of the job search, and the
 * NOTIFY that wakes `GET ...?wait=` when a job reaches a final status.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_jobs', (t) => {
    t.text('root_job_id');
    t.text('rerun_of').references('model_jobs.job_id');
    t.text('cancelled_by');
    t.text('cancel_reason');
    t.text('ecs_task_arn');
  });
  // Roots are themselves; a cascade's root is its source's root (cascades form trees, parents are older).
  await knex.raw(`
    WITH RECURSIVE tree AS (
      SELECT job_id, job_id AS root FROM model_jobs WHERE source_job_id IS NULL
      UNION ALL
      SELECT j.job_id, tree.root FROM model_jobs j JOIN tree ON j.source_job_id = tree.job_id
    )
    UPDATE model_jobs SET root_job_id = tree.root FROM tree WHERE model_jobs.job_id = tree.job_id`);
  await knex.raw(`UPDATE model_jobs SET root_job_id = job_id WHERE root_job_id IS NULL`);
  await knex.raw(`ALTER TABLE model_jobs ALTER COLUMN root_job_id SET NOT NULL`);
  // A job inserted without a root is its own root (every start but a cascade's).
  await knex.raw(`
    CREATE FUNCTION model_jobs_default_root() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.root_job_id := coalesce(NEW.root_job_id, NEW.job_id);
      RETURN NEW;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER model_jobs_default_root BEFORE INSERT ON model_jobs FOR EACH ROW EXECUTE FUNCTION model_jobs_default_root()`,
  );

  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_status_check`);
  await knex.raw(`ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_status_check
    CHECK (status IN ('pending', 'running', 'success', 'failure', 'timed_out', 'cancelled'))`);
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_trigger_check`);
  await knex.raw(`ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_trigger_check
    CHECK ("trigger" IN ('service_init', 'service_update', 'direct', 'assignment', 'cascade', 'rerun'))`);

  // Search: newest first within each filter; the id breaks ties, so a cursor (created_at, job_id) is one index range.
  await knex.raw(`CREATE INDEX model_jobs_created ON model_jobs (created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_client_created ON model_jobs (client_id, created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_model_created ON model_jobs (model_id, created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_domain_created ON model_jobs (domain_uuid, created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_service_created ON model_jobs (service_uuid, created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_status_created ON model_jobs (status, created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_trigger_created ON model_jobs ("trigger", created_at DESC, job_id DESC)`);
  await knex.raw(`CREATE INDEX model_jobs_root ON model_jobs (root_job_id, cascade_depth)`);
  // The unique (source_job_id, subscription_id) index is partial on subscription_id IS NOT NULL, which a search by
  // source job alone does not imply: without this one it was a sequential scan (bench/job-search.ts).
  await knex.raw(
    `CREATE INDEX model_jobs_source ON model_jobs (source_job_id, created_at DESC, job_id DESC) WHERE source_job_id IS NOT NULL`,
  );
  await knex.raw(`CREATE INDEX model_jobs_rerun_of ON model_jobs (rerun_of) WHERE rerun_of IS NOT NULL`);

  // One notification per job reaching a final status, sent at commit; the API's one listener wakes its waiters.
  await knex.raw(`
    CREATE FUNCTION model_jobs_notify_final() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('model_job_final', NEW.job_id);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER model_jobs_notify_final AFTER UPDATE OF status ON model_jobs FOR EACH ROW
    WHEN (NEW.status IN ('success', 'failure', 'timed_out', 'cancelled') AND OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION model_jobs_notify_final()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS model_jobs_notify_final ON model_jobs`);
  await knex.raw(`DROP FUNCTION IF EXISTS model_jobs_notify_final()`);
  await knex.raw(`DROP TRIGGER IF EXISTS model_jobs_default_root ON model_jobs`);
  await knex.raw(`DROP FUNCTION IF EXISTS model_jobs_default_root()`);
  for (const index of [
    'model_jobs_created',
    'model_jobs_client_created',
    'model_jobs_model_created',
    'model_jobs_domain_created',
    'model_jobs_service_created',
    'model_jobs_status_created',
    'model_jobs_trigger_created',
    'model_jobs_root',
    'model_jobs_source',
    'model_jobs_rerun_of',
  ]) {
    await knex.raw(`DROP INDEX IF EXISTS ${index}`);
  }
  await knex.raw(`DELETE FROM model_jobs WHERE "trigger" = 'rerun'`);
  await knex.raw(`UPDATE model_jobs SET status = 'failure' WHERE status = 'cancelled'`);
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_status_check`);
  await knex.raw(
    `ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_status_check CHECK (status IN (${STATUSES_BEFORE.map((s) => `'${s}'`).join(', ')}))`,
  );
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_trigger_check`);
  await knex.raw(
    `ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_trigger_check CHECK ("trigger" IN (${TRIGGERS_BEFORE.map((s) => `'${s}'`).join(', ')}))`,
  );
  await knex.schema.alterTable('model_jobs', (t) => {
    t.dropColumn('root_job_id');
    t.dropColumn('rerun_of');
    t.dropColumn('cancelled_by');
    t.dropColumn('cancel_reason');
    t.dropColumn('ecs_task_arn');
  });
}
