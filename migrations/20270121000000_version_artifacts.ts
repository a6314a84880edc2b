import type { Knex } from 'knex';

/**
 * What a model version is: its artifacts (name, URI, sha256, size, format), where it came from (`source`, free text)
 * and the training job that produced it (`source_job_id`, lineage). A trigger keeps the artifacts of an active version
 * as they are, whoever writes to the table: a changed artifact is a new version.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_versions', (t) => {
    t.jsonb('artifacts').notNullable().defaultTo('[]');
    t.text('source');
    // No foreign key: a job's row may be purged while the version it produced stays.
    t.text('source_job_id');
  });
  await knex.raw(`
    CREATE FUNCTION model_versions_artifacts_guard() RETURNS trigger AS $$
    BEGIN
      IF OLD.status IN ('active', 'deprecated', 'archived') AND (NEW.artifacts IS DISTINCT FROM OLD.artifacts OR NEW.source IS DISTINCT FROM OLD.source
          OR NEW.source_job_id IS DISTINCT FROM OLD.source_job_id) THEN
        RAISE EXCEPTION 'the artifacts of an active model version cannot change' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql;
    CREATE TRIGGER model_versions_artifacts_guard BEFORE UPDATE ON model_versions
      FOR EACH ROW EXECUTE FUNCTION model_versions_artifacts_guard();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER model_versions_artifacts_guard ON model_versions;
    DROP FUNCTION model_versions_artifacts_guard()`);
  await knex.schema.alterTable('model_versions', (t) => {
    t.dropColumn('source_job_id');
    t.dropColumn('source');
    t.dropColumn('artifacts');
  });
}
