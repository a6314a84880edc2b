import type { Register } from './types';
import { page, changeContext } from '../http/routing';
import type { createDomainsService } from '../domain/domains';
import type { AssignmentsService } from '../domain/assignments';

export function registerDomainRoutes(route: Register, domains: ReturnType<typeof createDomainsService>, assignments: AssignmentsService) {
  route('createDomain', async ({ params, body }) => domains.create(params.client_id, body));

  route('listDomains', async (r) => domains.list(r.params.client_id, page(r), r.query.status));

  route('getDomain', async ({ params }) => domains.get(params.client_id, params.domain_id));

  route('setDomainStatus', async ({ params, body }) => domains.setStatus(params.client_id, params.domain_id, body.status));

  route('assignDomainModel', async (r) =>
    assignments.assignModel(r.params.client_id, r.params.domain_id, r.body.model_id, changeContext(r)),
  );

  route('getFeatures', async ({ params }) => domains.getFeatures(params.client_id, params.domain_id));

  route('replaceFeatures', async (r) => domains.replaceFeatures(r.params.client_id, r.params.domain_id, r.body.features, changeContext(r)));
}
