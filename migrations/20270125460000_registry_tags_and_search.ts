import type { Knex } from 'knex';

/**
 * Tags on models and versions (key → text value, bounded by the same rule in code and here), and the indexes of the
 * registry's search: tags (containment and key presence), metadata and artifact formats (containment), name and
 * version-string prefixes, aliases by name, and the keyset orders of the pages (created_at or updated_at, then the key).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION registry_tags_valid(tags jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_typeof(tags) = 'object'
      AND (SELECT count(*) FROM jsonb_object_keys(tags)) <= 50
      AND NOT EXISTS (SELECT 1 FROM jsonb_each(tags) e
        WHERE length(e.key) > 128 OR jsonb_typeof(e.value) <> 'string' OR length(e.value #>> '{}') > 256)
  $$`);
  for (const table of ['models', 'model_versions']) {
    await knex.raw(`ALTER TABLE ${table} ADD COLUMN tags jsonb NOT NULL DEFAULT '{}'
      CONSTRAINT ${table}_tags_valid CHECK (registry_tags_valid(tags))`);
    await knex.raw(`CREATE INDEX ${table}_tags ON ${table} USING gin (tags)`);
    await knex.raw(`CREATE INDEX ${table}_metadata ON ${table} USING gin (metadata jsonb_path_ops)`);
  }
  await knex.raw(`CREATE INDEX models_name_prefix ON models (name text_pattern_ops)`);
  await knex.raw(`CREATE INDEX models_created_order ON models (created_at, id)`);
  await knex.raw(`CREATE INDEX models_updated_order ON models (updated_at, id)`);
  // A version's page key is `model_id@version` (unique: neither holds an @), the tiebreak of both orders.
  await knex.raw(`CREATE INDEX model_versions_created_order ON model_versions (created_at, (model_id || '@' || version))`);
  await knex.raw(`CREATE INDEX model_versions_updated_order ON model_versions (updated_at, (model_id || '@' || version))`);
  await knex.raw(`CREATE INDEX model_versions_artifacts ON model_versions USING gin (artifacts jsonb_path_ops)`);
  await knex.raw(`CREATE INDEX model_versions_version_prefix ON model_versions (version text_pattern_ops)`);
  await knex.raw(`CREATE INDEX model_versions_status ON model_versions (status)`);
  await knex.raw(`CREATE INDEX model_aliases_by_name ON model_aliases (alias, model_id, model_version)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX model_aliases_by_name, model_versions_status, model_versions_version_prefix, model_versions_artifacts,
    model_versions_updated_order, model_versions_created_order, models_updated_order, models_created_order, models_name_prefix`);
  for (const table of ['models', 'model_versions']) {
    await knex.raw(`DROP INDEX ${table}_metadata`);
    await knex.raw(`ALTER TABLE ${table} DROP COLUMN tags`);
  }
  await knex.raw(`DROP FUNCTION registry_tags_valid(jsonb)`);
}
