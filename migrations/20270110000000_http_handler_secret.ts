import type { Knex } from 'knex';

/**
 * `http` handlers: the secret the service signs its calls to a model's HTTP handlers with (Standard Webhooks), one per
 * model, sealed like the webhook secrets (src/secrets/secret-box.ts) and read and written only through
 * src/db/handler-secrets.repository.ts; a check keeps plain text out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('models', (t) => {
    t.text('http_handler_secret_sealed');
  });
  await knex.raw(`
    ALTER TABLE models ADD CONSTRAINT models_http_handler_secret_sealed
    CHECK (http_handler_secret_sealed IS NULL OR http_handler_secret_sealed LIKE 'sealed.v1.%')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE models DROP CONSTRAINT models_http_handler_secret_sealed');
  await knex.schema.alterTable('models', (t) => {
    t.dropColumn('http_handler_secret_sealed');
  });
}
