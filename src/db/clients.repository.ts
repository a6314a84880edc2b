import { randomUUID } from 'node:crypto';
import { Db, table } from './types';
import { paginate } from './pagination';
import { PageRequest, Page } from '../paging';
import type { LimitsOverride } from '../shapes';
import type { ClientRow } from '../domain/tenants';
import type { ClientFilter, ClientStore } from '../domain/ports';

// The client record is the domain's (src/domain/tenants/client.view.ts); the repository returns it.
export type { ClientRow };

const clients = (db: Db) => table<ClientRow>(db, 'clients');

export async function findClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  return clients(db).where({ client_id: clientId }).first();
}

/**
 * Inserts or updates by client_id; `created` tells which happened. `limits` undefined keeps the override, null
 * removes it.
 */
export async function upsertClient(
  db: Db,
  clientId: string,
  name: string | undefined,
  limits?: LimitsOverride | null,
): Promise<{ row: ClientRow; created: boolean }> {
  const newLimits = limits ? JSON.stringify(limits) : null;
  const rows = await db.raw<{ rows: (ClientRow & { created: boolean })[] }>(
    `INSERT INTO clients (client_id, client_uuid, name, limits) VALUES (?, ?, ?, ?::jsonb)
     ON CONFLICT (client_id) DO UPDATE SET name = COALESCE(?, clients.name),
       limits = CASE WHEN ? THEN clients.limits ELSE EXCLUDED.limits END, updated_at = now()
     RETURNING *, (xmax = 0) AS created`,
    [clientId, randomUUID(), name ?? '', newLimits, name ?? null, limits === undefined],
  );
  const { created, ...row } = rows.rows[0];
  return { row, created };
}

export async function setClientStatus(db: Db, clientId: string, status: string): Promise<ClientRow | undefined> {
  const [row] = await clients(db).where({ client_id: clientId }).update({ status, updated_at: db.fn.now() }).returning('*');
  return row;
}

export async function listClients(db: Db, page: PageRequest, filter: ClientFilter): Promise<Page<ClientRow>> {
  const q = db('clients').select('*');
  if (filter.status) q.where({ status: filter.status });
  if (filter.only) q.whereIn('client_id', filter.only);
  return paginate<ClientRow>(q, page, 'client_id', 'clients');
}

/** The Postgres client store (src/domain/ports/client-store.port.ts `ClientStore`) on this connection or transaction. */
export function clientStore(db: Db): ClientStore {
  return {
    find: (clientId) => findClient(db, clientId),
    upsert: (clientId, name, limits) => upsertClient(db, clientId, name, limits),
    setStatus: (clientId, status) => setClientStatus(db, clientId, status),
    list: (page, filter) => listClients(db, page, filter),
  };
}
