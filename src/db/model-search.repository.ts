import type { Knex } from 'knex';
import type { Db } from './types';
import { paginate } from './pagination';
import type { PageRequest, Page } from '../paging';
import { modelsWithStatus, type ModelRow, type VersionRow } from './models.repository';

/** The filters both registry searches share; every one given must hold. */
export interface RegistryFilter {
  /** A tag set (any value), or set to exactly `value`. */
  tag?: { key: string; value?: string };
  /** Alternatives of one metadata field (its value as text, and as the number or literal it reads as): any may hold. */
  metadata?: object[];
  alias?: string;
  artifactFormat?: string;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  sort: 'created_at' | 'updated_at';
}

export interface ModelFilter extends RegistryFilter {
  name?: string;
  namePrefix?: string;
  status?: string;
}

export interface VersionFilter extends RegistryFilter {
  modelId?: string;
  versionPrefix?: string;
  status?: string;
}

/** `LIKE` text that matches only what starts with `prefix` (its wildcards escaped). */
function startsWith(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The shared filters, on the columns of `t` (tags, metadata, created_at, updated_at). */
function applyShared(q: Knex.QueryBuilder, t: string, f: RegistryFilter): void {
  if (f.tag) {
    if (f.tag.value === undefined) q.whereRaw(`${t}.tags \\? ?`, [f.tag.key]);
    else q.whereRaw(`${t}.tags @> ?::jsonb`, [JSON.stringify({ [f.tag.key]: f.tag.value })]);
  }
  if (f.metadata) {
    const alternatives = f.metadata;
    q.where((w) => {
      for (const alt of alternatives) w.orWhereRaw(`${t}.metadata @> ?::jsonb`, [JSON.stringify(alt)]);
    });
  }
  if (f.createdAfter) q.where(`${t}.created_at`, '>=', f.createdAfter);
  if (f.createdBefore) q.where(`${t}.created_at`, '<', f.createdBefore);
  if (f.updatedAfter) q.where(`${t}.updated_at`, '>=', f.updatedAfter);
  if (f.updatedBefore) q.where(`${t}.updated_at`, '<', f.updatedBefore);
}

/** GET /v2/models: models with their derived status, filtered, a page newest first by `sort`. */
export async function searchModels(db: Db, page: PageRequest, f: ModelFilter): Promise<Page<ModelRow>> {
  const q = db.from(modelsWithStatus(db).as('m')).select('*');
  if (f.name) q.where('m.name', f.name);
  if (f.namePrefix) q.whereRaw('m.name LIKE ?', [startsWith(f.namePrefix)]);
  if (f.status) q.where('m.status', f.status);
  applyShared(q, 'm', f);
  if (f.alias) {
    q.whereExists((s) => s.select(db.raw('1')).from('model_aliases as a').whereRaw('a.model_id = m.id').where('a.alias', f.alias!));
  }
  if (f.artifactFormat) {
    q.whereExists((s) =>
      s
        .select(db.raw('1'))
        .from('model_versions as v')
        .whereRaw('v.model_id = m.id')
        .whereRaw('v.artifacts @> ?::jsonb', [JSON.stringify([{ format: f.artifactFormat }])]),
    );
  }
  return paginate<ModelRow>(q, page, 'id', 'm', f.sort);
}

/**
 * GET /v2/model-versions: versions of every model, filtered, a page newest first by `sort`; the page key after the
 * instant is `model_id@version`, the expression the order indexes hold.
 */
export async function searchVersions(db: Db, page: PageRequest, f: VersionFilter): Promise<Page<VersionRow>> {
  const q = db.from(db('model_versions').select('*', db.raw(`model_id || '@' || version AS version_key`)).as('v')).select('*');
  if (f.modelId) q.where('v.model_id', f.modelId);
  if (f.versionPrefix) q.whereRaw('v.version LIKE ?', [startsWith(f.versionPrefix)]);
  if (f.status) q.where('v.status', f.status);
  applyShared(q, 'v', f);
  if (f.alias) {
    q.whereExists((s) =>
      s
        .select(db.raw('1'))
        .from('model_aliases as a')
        .whereRaw('a.model_id = v.model_id AND a.model_version = v.version')
        .where('a.alias', f.alias!),
    );
  }
  if (f.artifactFormat) q.whereRaw('v.artifacts @> ?::jsonb', [JSON.stringify([{ format: f.artifactFormat }])]);
  const found = await paginate<VersionRow & { version_key?: string }>(q, page, 'version_key', 'v', f.sort);
  return { items: found.items.map(({ version_key: _key, ...row }) => row), next_cursor: found.next_cursor };
}
