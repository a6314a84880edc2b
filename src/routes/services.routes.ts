import type { Register } from './types';
import { page, answerStarted, jobContext, changeContext } from '../http/routing';
import type { createServicesService } from '../domain/services';

export function registerServiceRoutes(route: Register, services: ReturnType<typeof createServicesService>) {
  route('initService', async (r) =>
    answerStarted(r, await services.init(r.params.client_id, r.params.domain_id, r.body, jobContext(r, 'initService'))),
  );

  route('listServices', async (r) =>
    services.list(r.params.client_id, r.params.domain_id, page(r), { status: r.query.status, departed: r.query.departed }),
  );

  route('getService', async ({ params: p }) => services.get(p.client_id, p.domain_id, p.service_id));

  route('updateService', async (r) =>
    services.update(r.params.client_id, r.params.domain_id, r.params.service_id, r.body, changeContext(r)),
  );

  route('setServiceStatus', async ({ params: p, body }) => services.setStatus(p.client_id, p.domain_id, p.service_id, body.status));
}
