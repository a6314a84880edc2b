import type { Knex } from 'knex';

/**
 * Aliases: per model, a name (`champion`, `challenger`) that points at one of its versions. The foreign key keeps an
 * aliased version from being deleted under it (the deletion's 409 lists the alias first).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('model_aliases', (t) => {
    t.text('model_id').notNullable().references('models.id').onDelete('CASCADE');
    t.text('alias').notNullable();
    t.text('model_version').notNullable();
    t.text('updated_by');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.primary(['model_id', 'alias']);
    t.foreign(['model_id', 'model_version']).references(['model_id', 'version']).inTable('model_versions');
    t.index(['model_id', 'model_version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('model_aliases');
}
