import type { Page, PageRequest } from '../../paging';
import type { LimitsOverride } from '../../shapes';
import type { ClientRow } from '../tenants';

/** Which tenants a list shows: of one status, and only those named (the tenants a caller may see). */
export interface ClientFilter {
  status?: string;
  only?: string[];
}

/**
 * What the tenants' rules (src/domain/tenants/clients.service.ts) read and write of tenants: `clientStore(db)` in
 * src/db/clients.repository.ts is the Postgres one, `MemoryClientStore` in src/db/memory/ the in-memory one.
 */
export interface ClientStore {
  find(clientId: string): Promise<ClientRow | undefined>;
  /** Inserts or updates by client id; `created` tells which. `name` undefined keeps it; `limits` undefined keeps the override, null removes it. */
  upsert(clientId: string, name: string | undefined, limits?: LimitsOverride | null): Promise<{ row: ClientRow; created: boolean }>;
  /** The updated tenant; undefined when there is none. */
  setStatus(clientId: string, status: 'active' | 'suspended'): Promise<ClientRow | undefined>;
  /** Newest first (created_at, then client id), a page at a time; `next_cursor` is opaque. */
  list(page: PageRequest, filter: ClientFilter): Promise<Page<ClientRow>>;
}
