import type { Knex } from 'knex';
import * as repo from '../../db/webhooks.repository';
import { NotFoundError } from '../../errors';

/** Whose endpoints: a tenant's, or (null) the platform-wide ones. */
export type WebhookOwner = string | null;

/** Another owner's endpoint is a 404, like a missing one: ids of other tenants cannot be probed. */
export async function requireEndpoint(db: Knex | Knex.Transaction, owner: WebhookOwner, webhookId: string, lock = false) {
  const row = await repo.findEndpoint(db, webhookId, lock);
  if (!row || row.client_id !== owner) throw new NotFoundError(`webhook ${webhookId} not found`);
  return row;
}
