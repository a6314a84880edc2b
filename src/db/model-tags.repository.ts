import { type Db, table } from './types';
import type { VersionRow } from './models.repository';

const versions = (db: Db) => table<VersionRow>(db, 'model_versions');

/** Sets one tag of a model (replacing its value), and marks the model changed. */
export async function setModelTag(db: Db, modelId: string, key: string, value: string): Promise<void> {
  await db('models')
    .where({ id: modelId })
    .update({ tags: db.raw('tags || jsonb_build_object(?::text, ?::text)', [key, value]), updated_at: db.fn.now() });
}

export async function deleteModelTag(db: Db, modelId: string, key: string): Promise<void> {
  await db('models')
    .where({ id: modelId })
    .update({ tags: db.raw('tags - ?::text', [key]), updated_at: db.fn.now() });
}

export async function setVersionTag(db: Db, modelId: string, version: string, key: string, value: string): Promise<VersionRow> {
  const [row] = await versions(db)
    .where({ model_id: modelId, version })
    .update({ tags: db.raw('tags || jsonb_build_object(?::text, ?::text)', [key, value]), updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export async function deleteVersionTag(db: Db, modelId: string, version: string, key: string): Promise<VersionRow> {
  const [row] = await versions(db)
    .where({ model_id: modelId, version })
    .update({ tags: db.raw('tags - ?::text', [key]), updated_at: db.fn.now() })
    .returning('*');
  return row;
}
