import type { Knex } from 'knex';

/** An assignment may follow an alias of its model: moving the alias re-points it as a new revision. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assignments', (t) => {
    t.text('follows_alias');
  });
  await knex.raw(
    `CREATE INDEX assignments_following ON assignments (model_id, follows_alias) WHERE status = 'active' AND follows_alias IS NOT NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX assignments_following');
  await knex.schema.alterTable('assignments', (t) => {
    t.dropColumn('follows_alias');
  });
}
