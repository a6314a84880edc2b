import type { Knex } from 'knex';
import { SEALED_PREFIX, type SecretBox } from '../secrets/secret-box';

/** Every column that holds sealed secrets: `npm run secrets:reseal` walks them all. A new kind of secret adds its row here. */
export const SEALED_COLUMNS: { table: string; key: string; columns: string[] }[] = [
  { table: 'webhook_endpoints', key: 'webhook_id', columns: ['secret_sealed', 'previous_secret_sealed'] },
  { table: 'models', key: 'id', columns: ['http_handler_secret_sealed'] },
];

/**
 * Re-wraps every sealed secret not under the current key (the data keys only; the ciphertexts stay), a table per
 * transaction with its rows locked, so a rotation running beside it is neither lost nor doubled. Returns how many.
 */
export async function resealAll(knex: Knex, box: SecretBox): Promise<number> {
  const current = `${SEALED_PREFIX}${box.currentKeyId}.%`;
  let resealed = 0;
  for (const { table, key, columns } of SEALED_COLUMNS) {
    await knex.transaction(async (trx) => {
      const rows = await trx<Record<string, string | null>>(table)
        .select(key, ...columns)
        .where((q) => columns.forEach((c) => q.orWhere((w) => w.whereNotNull(c).andWhereNot(c, 'like', current))))
        .forUpdate();
      for (const row of rows) {
        const changes = Object.fromEntries(columns.map((c) => [c, row[c] === null ? null : box.reseal(row[c])]));
        resealed += columns.filter((c) => row[c] !== null && changes[c] !== row[c]).length;
        await trx(table).where(key, row[key]).update(changes);
      }
    });
  }
  return resealed;
}

/** How many sealed secrets each key id holds, over every sealed column. */
export async function sealedCountsByKey(knex: Knex): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { table, columns } of SEALED_COLUMNS) {
    for (const column of columns) {
      const rows: { key_id: string; n: number }[] = await knex(table)
        .whereNotNull(column)
        .select(knex.raw(`split_part(??, '.', 3) AS key_id`, [column]))
        .count('* as n')
        .groupBy('key_id');
      for (const { key_id, n } of rows) counts[key_id] = (counts[key_id] ?? 0) + Number(n);
    }
  }
  return counts;
}
