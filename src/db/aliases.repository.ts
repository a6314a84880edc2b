import { type Db, table } from './types';
import { paginate } from './pagination';
import type { PageRequest } from '../paging';

const aliases = (db: Db) => table<AliasRow>(db, 'model_aliases');

export interface AliasRow {
  model_id: string;
  alias: string;
  model_version: string;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function findAlias(db: Db, modelId: string, alias: string): Promise<AliasRow | undefined> {
  return aliases(db).where({ model_id: modelId, alias }).first();
}

/** The alias, kept from moving until the transaction ends (an assignment that starts following it). */
export async function findAliasForShare(db: Db, modelId: string, alias: string): Promise<AliasRow | undefined> {
  return aliases(db).where({ model_id: modelId, alias }).forShare().first();
}

/** The alias row locked until the transaction ends: moves of one alias queue behind each other. */
export async function lockAlias(db: Db, modelId: string, alias: string): Promise<AliasRow | undefined> {
  return aliases(db).where({ model_id: modelId, alias }).forUpdate().first();
}

/** Points the alias at a version, creating it when missing; an insert racing another one for the same name waits for it. */
export async function writeAlias(db: Db, modelId: string, alias: string, version: string, actor: string | null): Promise<AliasRow> {
  const [row] = await aliases(db)
    .insert({ model_id: modelId, alias, model_version: version, updated_by: actor })
    .onConflict(['model_id', 'alias'])
    .merge({ model_version: version, updated_by: actor, updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export async function deleteAlias(db: Db, modelId: string, alias: string): Promise<void> {
  await aliases(db).where({ model_id: modelId, alias }).delete();
}

export async function listAliases(db: Db, modelId: string, page: PageRequest) {
  return paginate<AliasRow>(aliases(db).where({ model_id: modelId }), page, 'alias', 'model_aliases');
}

/** The aliases of a model (of one version, when given), for the references that block a deletion or archiving. */
export async function aliasesOf(db: Db, modelId: string, version?: string): Promise<string[]> {
  const q = aliases(db).where({ model_id: modelId });
  if (version !== undefined) q.where({ model_version: version });
  return q.orderBy('alias').pluck('alias');
}
