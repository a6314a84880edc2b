import type { Register } from './types';
import { page, changeContext } from '../http/routing';
import { visibleTenants } from '../auth/access';
import type { createModelsService } from '../domain/models';
import type { createRetirementService } from '../domain/models';
import type { createAliasesService } from '../domain/models';

export function registerModelRoutes(
  route: Register,
  models: ReturnType<typeof createModelsService>,
  retirement: ReturnType<typeof createRetirementService>,
  aliases: ReturnType<typeof createAliasesService>,
) {
  route('createModel', async (r) => models.create(r.body, changeContext(r)));

  route('getModel', async ({ params }) => models.get(params.model_id));

  route('updateModel', async (r) => models.update(r.params.model_id, r.body, changeContext(r)));

  route('createVersion', async (r) => models.createVersion(r.params.model_id, r.body, changeContext(r)));
  route('getModelCompatibility', async (r) =>
    models.compatibility(r.params.model_id, r.query.model_version, visibleTenants(r.ctx.state.principal)),
  );

  route('listVersions', async (r) => models.listVersions(r.params.model_id, page(r), r.query.status));

  route('getVersion', async ({ params }) => models.getVersion(params.model_id, params.model_version));

  route('setVersionArtifacts', async (r) => models.setVersionArtifacts(r.params.model_id, r.params.model_version, r.body));

  route('setVersionStatus', async (r) =>
    models.setVersionStatus(r.params.model_id, r.params.model_version, r.body.status, changeContext(r)),
  );

  route('deleteVersion', async (r) => retirement.deleteVersion(r.params.model_id, r.params.model_version, changeContext(r)));

  route('deleteModel', async (r) => retirement.deleteModel(r.params.model_id, changeContext(r)));

  route('listAliases', async (r) => aliases.list(r.params.model_id, page(r)));
  route('getAlias', async (r) => aliases.get(r.params.model_id, r.params.alias));
  route('putAlias', async (r) => aliases.put(r.params.model_id, r.params.alias, r.body, changeContext(r)));
  route('deleteAlias', async (r) => aliases.remove(r.params.model_id, r.params.alias));
}
