import type { Knex } from 'knex';
import * as repo from '../../db/assignments.repository';
import { requireDomain, requireService, toAssignment } from '../common';
import { mapPage, PageRequest } from '../../paging';
import { InvalidInputError, NotFoundError } from '../../errors';

/** The `at` instant (its RFC 3339 form checked by the request validator); a leap second (23:59:60) Date cannot hold is a 400. */
function parseInstant(at: string): Date {
  const instant = new Date(at);
  if (Number.isNaN(instant.getTime())) {
    throw new InvalidInputError(`query parameter at must be an RFC 3339 date-time with an offset, e.g. 2026-12-20T10:00:00Z; got "${at}"`);
  }
  return instant;
}

/** The reads of assignments: the active revision under a key, the lists, the effective set of a service. */
export function createAssignmentQueries(deps: { knex: Knex }) {
  const { knex } = deps;

  async function resolveScope(clientId: string, domainId: string, serviceId?: string): Promise<repo.Scope> {
    const domain = await requireDomain(knex, clientId, domainId);
    if (!serviceId) return { domainUuid: domain.domain_uuid, domainId };
    const service = await requireService(knex, domain, serviceId);
    return { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId };
  }

  return {
    resolveScope,

    async getActive(clientId: string, domainId: string, key: string, serviceId?: string) {
      const scope = await resolveScope(clientId, domainId, serviceId);
      const row = await repo.findActive(knex, scope, key);
      if (!row) throw new NotFoundError(`no active assignment under key ${key}`);
      return toAssignment(row, scope);
    },

    async list(clientId: string, domainId: string, page: PageRequest, status: 'active' | 'archived' | 'all', serviceId?: string) {
      const scope = await resolveScope(clientId, domainId, serviceId);
      return mapPage(await repo.listAssignments(knex, scope, page, status), (r) => toAssignment(r, scope));
    },

    /** For each key: the service's own active assignment if it has one, else the domain's. */
    /** With `at`: the revisions in force at that instant (time travel), the service's own before the domain's. */
    async effective(clientId: string, domainId: string, serviceId: string, page: PageRequest, at?: string) {
      const instant = at === undefined ? undefined : parseInstant(at);
      const scope = (await resolveScope(clientId, domainId, serviceId)) as Required<repo.Scope>;
      const rows = instant
        ? await repo.effectiveAssignmentsAt(knex, scope, instant, page)
        : await repo.effectiveAssignments(knex, scope, page);
      return mapPage(rows, (r) => toAssignment(r, scope));
    },
  };
}
