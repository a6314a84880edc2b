import type { Register } from './types';
import { page } from '../http/routing';
import type { createModelTagsService } from '../domain/models';
import type { createModelSearch } from '../domain/models';

/** The registry's tags and searches (docs/registry.md, "Tags and search"). */
export function registerModelTagRoutes(
  route: Register,
  tags: ReturnType<typeof createModelTagsService>,
  search: ReturnType<typeof createModelSearch>,
) {
  route('listModels', async (r) => search.models(page(r), r.query));
  route('searchVersions', async (r) => search.versions(page(r), r.query));

  route('setModelTag', async (r) => tags.setModelTag(r.params.model_id, r.params.tag_key, r.body.value));
  route('deleteModelTag', async (r) => tags.deleteModelTag(r.params.model_id, r.params.tag_key));
  route('setVersionTag', async (r) => tags.setVersionTag(r.params.model_id, r.params.model_version, r.params.tag_key, r.body.value));
  route('deleteVersionTag', async (r) => tags.deleteVersionTag(r.params.model_id, r.params.model_version, r.params.tag_key));
}
