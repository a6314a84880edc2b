import type { Knex } from 'knex';

const STATUSES = (list: string[]) => list.map((s) => `'${s}'`).join(', ');

/**
 * Version retirement: statuses `deprecated` (runs where assigned, never newly assigned) and `archived` (runs nowhere),
 * and deletion of versions and models that nothing references. Jobs and archived assignment revisions keep naming the
 * version they ran after it is deleted (history), so their foreign keys to model_versions go; a tombstone keeps a
 * deleted model id or version string from being registered again and inheriting that history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE model_versions DROP CONSTRAINT model_versions_status_check;
    ALTER TABLE model_versions ADD CONSTRAINT model_versions_status_check
      CHECK (status IN (${STATUSES(['pending', 'training', 'active', 'failed', 'deprecated', 'archived'])}))`);
  await knex.raw(`ALTER TABLE model_jobs DROP CONSTRAINT model_jobs_model_id_model_version_foreign;
    ALTER TABLE assignments DROP CONSTRAINT assignments_model_id_model_version_foreign`);
  await knex.schema.createTable('registry_deletions', (t) => {
    t.text('model_id').notNullable();
    // Null: the whole model was deleted.
    t.text('version');
    t.timestamp('deleted_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('now()'));
    t.text('deleted_by');
  });
  await knex.raw(`CREATE UNIQUE INDEX registry_deletions_once ON registry_deletions (model_id, COALESCE(version, ''))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('registry_deletions');
  // NOT VALID: the rows of deleted versions stay (history); the keys hold for every row written from now on.
  await knex.raw(`ALTER TABLE model_jobs ADD CONSTRAINT model_jobs_model_id_model_version_foreign
      FOREIGN KEY (model_id, model_version) REFERENCES model_versions (model_id, version) NOT VALID;
    ALTER TABLE assignments ADD CONSTRAINT assignments_model_id_model_version_foreign
      FOREIGN KEY (model_id, model_version) REFERENCES model_versions (model_id, version) NOT VALID`);
  await knex.raw(`UPDATE model_versions SET status = CASE status WHEN 'deprecated' THEN 'active' ELSE 'failed' END
      WHERE status IN ('deprecated', 'archived');
    ALTER TABLE model_versions DROP CONSTRAINT model_versions_status_check;
    ALTER TABLE model_versions ADD CONSTRAINT model_versions_status_check
      CHECK (status IN (${STATUSES(['pending', 'training', 'active', 'failed'])}))`);
}
