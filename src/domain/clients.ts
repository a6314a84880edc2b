import type { Knex } from 'knex';
import * as repo from '../db/clients.repository';
import { requireClient } from './lookups';
import { mapPage, type PageRequest } from '../db/pagination';
import { toClient } from './views';

export function createClientsService(knex: Knex) {
  return {
    async upsert(clientId: string, name?: string) {
      const { row, created } = await repo.upsertClient(knex, clientId, name);
      return { client: toClient(row), created };
    },
    async get(clientId: string) {
      return toClient(await requireClient(knex, clientId));
    },
    async setStatus(clientId: string, status: 'active' | 'suspended') {
      await requireClient(knex, clientId);
      return toClient((await repo.setClientStatus(knex, clientId, status))!);
    },
    /** `only` narrows the list to the tenants the caller may see. */
    async list(page: PageRequest, filter: { status?: string; only?: string[] }) {
      return mapPage(await repo.listClients(knex, page, filter), toClient);
    },
  };
}
