import type { Register } from './types';
import { page } from '../http/routing';
import type { createModelsService } from '../domain/models';

export function registerModelRoutes(route: Register, models: ReturnType<typeof createModelsService>) {
  route('createModel', async ({ body }) => models.create(body));

  route('listModels', async (r) => models.list(page(r), { name: r.query.name, status: r.query.status }));

  route('getModel', async ({ params }) => models.get(params.model_id));

  route('updateModel', async ({ params, body }) => models.update(params.model_id, body));

  route('createVersion', async ({ params, body }) => models.createVersion(params.model_id, body));

  route('listVersions', async (r) => models.listVersions(r.params.model_id, page(r), r.query.status));

  route('getVersion', async ({ params }) => models.getVersion(params.model_id, params.model_version));

  route('setVersionStatus', async ({ params, body }) => models.setVersionStatus(params.model_id, params.model_version, body.status));
}
