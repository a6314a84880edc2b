import type { Operation } from './operation';

const text = (maxLength: number, description: string) => ({ type: 'string', minLength: 1, maxLength, description });
const instant = (description: string) => ({ type: 'string', format: 'date-time', description });

/** The filters both registry searches share; each is one parameter, and every given filter must hold (AND). */
const sharedFilters: Record<string, object> = {
  tag: text(400, 'A tag: `<key>` (the tag is set, whatever its value) or `<key>=<value>` (exactly that value), e.g. `team=fraud`'),
  metadata: text(
    1100,
    'A metadata field: `<path>=<value>`, the path one to eight keys joined by dots (`dataset.name=fares-2026`); the value matches ' +
      'that text, and also that number, boolean or null when it reads as one (`epochs=10` matches 10 and "10")',
  ),
  alias: text(63, 'Only what an alias of this name points at (for models: models that have such an alias)'),
  artifact_format: text(64, 'Only versions with an artifact of this format (for models: models with such a version), e.g. `onnx`'),
  created_after: instant('Created at or after this instant'),
  created_before: instant('Created before this instant'),
  updated_after: instant('Changed at or after this instant'),
  updated_before: instant('Changed before this instant'),
  sort: {
    type: 'string',
    enum: ['created_at', 'updated_at'],
    description:
      'The order of the pages, newest first: by creation (default) or by last change; pass a next_cursor only with the filters and sort that gave it',
  },
};

export const MODEL_SEARCH_QUERY: Record<string, object> = {
  status: { type: 'string', enum: ['pending', 'active'] },
  name: { type: 'string', description: 'Only models with exactly this name' },
  name_prefix: text(200, 'Only models whose name starts with this text (case-sensitive)'),
  ...sharedFilters,
};

const VERSION_STATUSES = ['pending', 'training', 'active', 'failed', 'deprecated', 'archived'];

/** Tags on models and versions, and the version search across models (docs/registry.md, "Tags and search"). */
export const REGISTRY_SEARCH_OPERATIONS: Operation[] = [
  {
    id: 'searchVersions',
    method: 'GET',
    path: '/v2/model-versions',
    permission: 'read_models',
    tenancy: 'global',
    summary: 'Search versions across models by model, version prefix, status, tag, metadata, alias, artifact format and time ranges',
    response: 'ModelVersion',
    status: 200,
    paginated: true,
    query: {
      model_id: text(128, 'Only versions of this model'),
      version_prefix: text(128, 'Only versions whose version string starts with this text'),
      status: { type: 'string', enum: VERSION_STATUSES },
      ...sharedFilters,
    },
  },
  {
    id: 'setModelTag',
    method: 'PUT',
    path: '/v2/models/{model_id}/tags/{tag_key}',
    permission: 'write_models',
    tenancy: 'platform',
    summary: 'Set a tag of a model (400 past 50 tags)',
    body: 'TagRequest',
    response: 'Model',
    status: 200,
  },
  {
    id: 'deleteModelTag',
    method: 'DELETE',
    path: '/v2/models/{model_id}/tags/{tag_key}',
    permission: 'write_models',
    tenancy: 'platform',
    summary: 'Delete a tag of a model',
    response: 'Model',
    status: 200,
  },
  {
    id: 'setVersionTag',
    method: 'PUT',
    path: '/v2/models/{model_id}/versions/{model_version}/tags/{tag_key}',
    permission: 'write_models',
    tenancy: 'platform',
    summary: 'Set a tag of a version, whatever its status (400 past 50 tags)',
    body: 'TagRequest',
    response: 'ModelVersion',
    status: 200,
  },
  {
    id: 'deleteVersionTag',
    method: 'DELETE',
    path: '/v2/models/{model_id}/versions/{model_version}/tags/{tag_key}',
    permission: 'write_models',
    tenancy: 'platform',
    summary: 'Delete a tag of a version',
    response: 'ModelVersion',
    status: 200,
  },
];
