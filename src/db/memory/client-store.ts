import { randomUUID } from 'node:crypto';
import type { ClientFilter, ClientStore } from '../../domain/ports';
import type { ClientRow } from '../../domain/tenants';
import type { Page, PageRequest } from '../../paging';
import type { LimitsOverride } from '../../shapes';
import { decodeCursor, encodeCursor } from '../pagination';

/**
 * Tenants in a map (src/domain/ports/client-store.port.ts; Postgres: `clientStore` in ../clients.repository.ts), with
 * the same upsert and the same keyset pages, newest first, under the same cursors. `now` stamps the writes.
 */
export class MemoryClientStore implements ClientStore {
  readonly clients = new Map<string, ClientRow>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async find(clientId: string): Promise<ClientRow | undefined> {
    return this.copy(this.clients.get(clientId));
  }

  async upsert(clientId: string, name: string | undefined, limits?: LimitsOverride | null): Promise<{ row: ClientRow; created: boolean }> {
    const current = this.clients.get(clientId);
    const at = this.now();
    const row: ClientRow = current
      ? { ...current, name: name ?? current.name, limits: limits === undefined ? current.limits : limits, updated_at: at }
      : {
          client_id: clientId,
          client_uuid: randomUUID(),
          name: name ?? '',
          status: 'active',
          limits: limits ?? null,
          created_at: at,
          updated_at: at,
        };
    this.clients.set(clientId, row);
    return { row: this.copy(row)!, created: !current };
  }

  async setStatus(clientId: string, status: 'active' | 'suspended'): Promise<ClientRow | undefined> {
    const current = this.clients.get(clientId);
    if (!current) return undefined;
    const row = { ...current, status, updated_at: this.now() };
    this.clients.set(clientId, row);
    return this.copy(row);
  }

  async list(page: PageRequest, filter: ClientFilter): Promise<Page<ClientRow>> {
    const after = page.cursor ? decodeCursor(page.cursor) : undefined;
    const rows = [...this.clients.values()]
      .filter((c) => (!filter.status || c.status === filter.status) && (!filter.only || filter.only.includes(c.client_id)))
      .sort(
        (a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.client_id < b.client_id ? 1 : a.client_id > b.client_id ? -1 : 0),
      )
      .filter((c) => !after || isBefore(c, after));
    const items = rows.slice(0, page.limit).map((c) => this.copy(c)!);
    const last = items[items.length - 1];
    return { items, next_cursor: rows.length > page.limit ? encodeCursor(last.created_at, last.client_id) : null };
  }

  /** A stored row is the store's: callers get copies, as they get fresh rows from Postgres. */
  private copy(row: ClientRow | undefined): ClientRow | undefined {
    return row && structuredClone(row);
  }
}

/** Whether `row` comes after the cursor `[instant, id]` in newest-first order. */
function isBefore(row: ClientRow, [at, id]: [string, string]): boolean {
  const instant = new Date(at).getTime();
  return row.created_at.getTime() < instant || (row.created_at.getTime() === instant && row.client_id < id);
}
