import type { Register } from './types';
import { page } from '../http/routing';
import { visibleTenants } from '../auth/access';
import type { createClientsService } from '../domain/tenants';

export function registerClientRoutes(route: Register, clients: ReturnType<typeof createClientsService>) {
  route('listClients', async (r) => clients.list(page(r), { status: r.query.status, only: visibleTenants(r.ctx.state.principal) }));

  route('upsertClient', async ({ ctx, params, body }) => {
    const { client, created } = await clients.upsert(params.client_id, body.name, body.limits);
    ctx.status = created ? 201 : 200;
    return client;
  });

  route('getClient', async ({ params }) => clients.get(params.client_id));

  route('setClientStatus', async ({ params, body }) => clients.setStatus(params.client_id, body.status));
}
