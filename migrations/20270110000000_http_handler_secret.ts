import type { Knex } from 'knex';

/**
 * `http` handlers (#30): the secret the service signs its calls to a model's HTTP handlers with (Standard Webhooks),
 * one per model, in a column of its own, read and written only through src/db/handler-secrets.repository.ts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.text('http_handler_secret');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('http_handler_secret');
  });
}
