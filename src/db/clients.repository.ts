import { randomUUID } from 'node:crypto';
import { Db, table } from './types';
import { paginate } from './pagination';
import { PageRequest } from '../paging';
import type { LimitsOverride } from '../shapes';

export interface ClientRow {
  client_id: string;
  client_uuid: string;
  name: string;
  status: 'active' | 'suspended';
  /** The override of the configured limits a platform administrator set; null: the defaults. */
  limits: LimitsOverride | null;
  created_at: Date;
  updated_at: Date;
}

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

export async function listClients(db: Db, page: PageRequest, filter: { status?: string; only?: string[] }) {
  const q = db('clients').select('*');
  if (filter.status) q.where({ status: filter.status });
  if (filter.only) q.whereIn('client_id', filter.only);
  return paginate<ClientRow>(q, page, 'client_id', 'clients');
}
