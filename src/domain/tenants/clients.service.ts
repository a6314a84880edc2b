import { NotFoundError } from '../../errors';
import { mapPage, type PageRequest } from '../../paging';
import { toClient } from '../common';
import type { LimitDefaults, LimitsOverride } from '../common';
import type { ClientStore } from '../ports';
import type { ClientRow } from './client.view';

/** The tenants (machine clients) and their limits, over a `ClientStore` (Postgres in the service, memory in unit tests). */
export function createClientsService(store: ClientStore, defaults: LimitDefaults) {
  const present = (row: ClientRow) => toClient(row, defaults);
  async function requireClient(clientId: string): Promise<ClientRow> {
    const client = await store.find(clientId);
    if (!client) throw new NotFoundError(`client ${clientId} not found`);
    return client;
  }
  return {
    /** `limits`: an override replaces the tenant's (fields left out take the defaults); null removes it; undefined keeps it. */
    async upsert(clientId: string, name?: string, limits?: LimitsOverride | null) {
      // An empty override is no override: the tenant is on the defaults.
      const override = limits && Object.keys(limits).length === 0 ? null : limits;
      const { row, created } = await store.upsert(clientId, name, override);
      return { client: present(row), created };
    },
    async get(clientId: string) {
      return present(await requireClient(clientId));
    },
    async setStatus(clientId: string, status: 'active' | 'suspended') {
      await requireClient(clientId);
      return present((await store.setStatus(clientId, status))!);
    },
    /** `only` narrows the list to the tenants the caller may see. */
    async list(page: PageRequest, filter: { status?: string; only?: string[] }) {
      return mapPage(await store.list(page, filter), present);
    },
  };
}
