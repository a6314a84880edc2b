import type { Knex } from 'knex';
import type { SecretBox } from '../src/secrets/secret-box';

/**
 * Webhook signing secrets were stored in plain text. They are sealed now (src/secrets/secret-box.ts, envelope
 * encryption under SECRET_KEYS): the columns are renamed so no reader takes a sealed value for a secret, the rows
 * that exist are sealed in this migration's transaction, and a check keeps plain text out from here on.
 * Without keys it runs on a table with no secrets in it, and stops, naming SECRET_KEYS, on one with secrets.
 */
export function sealedWebhookSecrets(secrets: SecretBox | undefined): Knex.Migration {
  /** Rewrites both secret columns of every row (they hold plain text before `up` seals them and after `down` opens them). */
  const rewrite = async (knex: Knex, change: (value: string) => string) => {
    const rows = await knex('webhook_endpoints')
      .select<{ webhook_id: string; secret_sealed: string; previous_secret_sealed: string | null }[]>(
        'webhook_id',
        'secret_sealed',
        'previous_secret_sealed',
      )
      .forUpdate();
    if (rows.length && !secrets) {
      const count = rows.length + rows.filter((r) => r.previous_secret_sealed !== null).length;
      throw new Error(`webhook_endpoints holds ${count} signing secrets to convert: set SECRET_KEYS (README, "Secrets at rest")`);
    }
    for (const row of rows) {
      const previous = row.previous_secret_sealed;
      await knex('webhook_endpoints')
        .where({ webhook_id: row.webhook_id })
        .update({ secret_sealed: change(row.secret_sealed), previous_secret_sealed: previous === null ? null : change(previous) });
    }
  };

  return {
    async up(knex) {
      await knex.schema.alterTable('webhook_endpoints', (t) => {
        t.renameColumn('secret', 'secret_sealed');
        t.renameColumn('previous_secret', 'previous_secret_sealed');
      });
      await rewrite(knex, (plain) => secrets!.seal(plain));
      await knex.raw(`
        ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secrets_sealed
        CHECK (secret_sealed LIKE 'sealed.v1.%' AND (previous_secret_sealed IS NULL OR previous_secret_sealed LIKE 'sealed.v1.%'))`);
    },

    async down(knex) {
      await knex.raw('ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_secrets_sealed');
      await rewrite(knex, (sealed) => secrets!.open(sealed));
      await knex.schema.alterTable('webhook_endpoints', (t) => {
        t.renameColumn('secret_sealed', 'secret');
        t.renameColumn('previous_secret_sealed', 'previous_secret');
      });
    },
  };
}
