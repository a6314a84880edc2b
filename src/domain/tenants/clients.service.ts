import type { Knex } from 'knex';
import * as repo from '../../db/clients.repository';
import { requireClient } from '../common';
import { mapPage, type PageRequest } from '../../paging';
import { toClient } from '../common';
import type { LimitDefaults, LimitsOverride } from '../common';

export function createClientsService(knex: Knex, defaults: LimitDefaults) {
  const present = (row: repo.ClientRow) => toClient(row, defaults);
  return {
    /** `limits`: an override replaces the tenant's (fields left out take the defaults); null removes it; undefined keeps it. */
    async upsert(clientId: string, name?: string, limits?: LimitsOverride | null) {
      // An empty override is no override: the tenant is on the defaults.
      const override = limits && Object.keys(limits).length === 0 ? null : limits;
      const { row, created } = await repo.upsertClient(knex, clientId, name, override);
      return { client: present(row), created };
    },
    async get(clientId: string) {
      return present(await requireClient(knex, clientId));
    },
    async setStatus(clientId: string, status: 'active' | 'suspended') {
      await requireClient(knex, clientId);
      return present((await repo.setClientStatus(knex, clientId, status))!);
    },
    /** `only` narrows the list to the tenants the caller may see. */
    async list(page: PageRequest, filter: { status?: string; only?: string[] }) {
      return mapPage(await repo.listClients(knex, page, filter), present);
    },
  };
}
