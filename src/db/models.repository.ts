import type { Schemas } from '../openapi/types';
import { Db, table } from './types';
import { paginate } from './pagination';
import { PageRequest } from '../paging';
import type { HandlerContract, HandlerContracts, ModelRow, VersionRow, VersionStatus } from '../domain/models';

// The registry's records are the domain's (src/domain/models/model.view.ts); the repository returns them.
export type { HandlerContract, HandlerContracts, ModelRow, VersionRow, VersionStatus };

type Artifact = Schemas['ModelArtifact'];

const models = (db: Db) => table<ModelRow>(db, 'models');
const versions = (db: Db) => table<VersionRow>(db, 'model_versions');

/** A JSON Schema (2020-12): an object, or `true`/`false`. */
export type JsonSchema = boolean | Record<string, unknown>;

const MODEL_COLUMNS = ['id', 'name', 'description', 'metadata', 'handlers', 'handler_contracts', 'tags', 'created_at', 'updated_at'];

export function modelsWithStatus(db: Db) {
  // Named columns, not models.*: the handler secret is read only through handler-secrets.repository.ts.
  return models(db).select<ModelRow[]>(
    ...MODEL_COLUMNS.map((c) => `models.${c}`),
    db.raw(`CASE WHEN EXISTS (SELECT 1 FROM model_versions v WHERE v.model_id = models.id AND v.status = 'active')
            THEN 'active' ELSE 'pending' END AS status`),
  );
}

export async function findModel(db: Db, id: string): Promise<ModelRow | undefined> {
  return modelsWithStatus(db).where('models.id', id).first();
}

/** A model's handler contracts alone (undefined for a missing model): the one column the outcome step checks. */
export async function findHandlerContracts(db: Db, id: string): Promise<HandlerContracts | null | undefined> {
  const row = await models(db).where({ id }).first('handler_contracts');
  return row?.handler_contracts;
}

/** A model row with its newest version as Postgres renders it in JSON (instants as text). */
type NewestVersionRow = ModelRow & {
  newest_version:
    | (Omit<VersionRow, 'created_at' | 'updated_at' | 'status_changed_at'> & {
        created_at: string;
        updated_at: string;
        status_changed_at: string | null;
      })
    | null;
};

/** A model with its newest version (or null), in one statement: the read path of GET /v2/models/{id}. */
export async function findModelWithNewestVersion(db: Db, id: string): Promise<{ model: ModelRow; version: VersionRow | null } | undefined> {
  const row = await modelsWithStatus(db)
    .select<NewestVersionRow[]>(
      db.raw(`(SELECT to_jsonb(v) FROM model_versions v WHERE v.model_id = models.id
                     ORDER BY v.created_at DESC, v.version DESC LIMIT 1) AS newest_version`),
    )
    .where('models.id', id)
    .first();
  if (!row) return undefined;
  const { newest_version: v, ...model } = row;
  if (!v) return { model, version: null };
  const dates = {
    created_at: new Date(v.created_at),
    updated_at: new Date(v.updated_at),
    status_changed_at: v.status_changed_at === null ? null : new Date(v.status_changed_at),
  };
  return { model, version: { ...v, ...dates } };
}

export async function lockModel(db: Db, id: string): Promise<ModelRow | undefined> {
  await models(db).where({ id }).forUpdate().first();
  return findModel(db, id);
}

export async function insertModel(
  db: Db,
  model: Omit<ModelRow, 'created_at' | 'updated_at' | 'status' | 'tags'> & { tags?: Record<string, string> },
): Promise<void> {
  await models(db).insert({
    ...model,
    metadata: JSON.stringify(model.metadata),
    tags: JSON.stringify(model.tags ?? {}),
    handlers: JSON.stringify(model.handlers),
    handler_contracts: model.handler_contracts === null ? null : JSON.stringify(model.handler_contracts),
  });
}

export async function updateModel(
  db: Db,
  id: string,
  changes: Partial<Pick<ModelRow, 'name' | 'description' | 'metadata' | 'handlers' | 'handler_contracts'>>,
) {
  const row: Record<string, unknown> = { updated_at: db.fn.now() };
  for (const [k, v] of Object.entries(changes)) {
    if (v !== undefined) row[k] = k === 'name' || k === 'description' || v === null ? v : JSON.stringify(v);
  }
  await models(db).where({ id }).update(row);
}

export async function insertVersion(
  db: Db,
  v: Omit<
    VersionRow,
    | 'created_at'
    | 'updated_at'
    | 'created_by'
    | 'status_changed_by'
    | 'status_changed_at'
    | 'artifacts'
    | 'source'
    | 'source_job_id'
    | 'tags'
  > & {
    created_by?: string | null;
    tags?: Record<string, string>;
    artifacts?: Artifact[];
    source?: string | null;
  },
): Promise<VersionRow> {
  const [row] = await versions(db)
    .insert({
      ...v,
      metadata: JSON.stringify(v.metadata),
      features: JSON.stringify(v.features),
      artifacts: JSON.stringify(v.artifacts ?? []),
      tags: JSON.stringify(v.tags ?? {}),
    })
    .returning('*');
  return row;
}

/** Replaces a version's artifacts (and its source when given); the caller has checked the version is not active. */
export async function setVersionArtifacts(
  db: Db,
  modelId: string,
  version: string,
  artifacts: Artifact[],
  source: string | undefined,
): Promise<VersionRow> {
  const [row] = await versions(db)
    .where({ model_id: modelId, version })
    .update({ artifacts: JSON.stringify(artifacts), ...(source === undefined ? {} : { source }), updated_at: db.fn.now() })
    .returning('*');
  return row;
}

/**
 * A training job's success: the version becomes active in the same statement that records the job as its source and,
 * when the job reported some, its artifacts (the guard trigger forbids changing them afterwards).
 */
export async function activateTrainedVersion(
  db: Db,
  modelId: string,
  version: string,
  jobId: string,
  artifacts: Artifact[] | undefined,
): Promise<VersionRow> {
  const [row] = await versions(db)
    .where({ model_id: modelId, version })
    .update({
      status: 'active',
      source_job_id: jobId,
      ...(artifacts ? { artifacts: JSON.stringify(artifacts) } : {}),
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row;
}

export async function findVersion(db: Db, modelId: string, version: string): Promise<VersionRow | undefined> {
  return versions(db).where({ model_id: modelId, version }).first();
}

/** The version, kept from deletion, archiving and other status moves until the transaction ends (a new assignment's check). */
export async function findVersionForShare(db: Db, modelId: string, version: string): Promise<VersionRow | undefined> {
  return versions(db).where({ model_id: modelId, version }).forShare().first();
}

/** Keeps the model from deletion until the transaction ends (a job start of one of its versions). */
export async function shareModel(db: Db, id: string): Promise<void> {
  await models(db).where({ id }).forShare().first('id');
}

export async function lockVersion(db: Db, modelId: string, version: string): Promise<VersionRow | undefined> {
  return versions(db).where({ model_id: modelId, version }).forUpdate().first();
}

export async function newestVersion(db: Db, modelId: string, status?: VersionStatus): Promise<VersionRow | undefined> {
  const q = versions(db).where({ model_id: modelId });
  if (status) q.where('status', status);
  return q
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'version', order: 'desc' },
    ])
    .first();
}

export async function setVersionStatus(
  db: Db,
  modelId: string,
  version: string,
  status: VersionStatus,
  actor?: string | null,
): Promise<VersionRow> {
  const audit = actor === undefined ? {} : { status_changed_by: actor, status_changed_at: db.fn.now() };
  const [row] = await versions(db)
    .where({ model_id: modelId, version })
    .update({ status, updated_at: db.fn.now(), ...audit })
    .returning('*');
  return row;
}

export async function listVersions(db: Db, modelId: string, page: PageRequest, status?: string) {
  const q = versions(db).where({ model_id: modelId });
  if (status) q.where('status', status);
  return paginate<VersionRow>(q, page, 'version', 'model_versions');
}

/** Deletes a version; the jobs and assignment revisions that name it keep doing so (history). A tombstone keeps its string. */
export async function deleteVersion(db: Db, modelId: string, version: string, actor: string | null): Promise<void> {
  await versions(db).where({ model_id: modelId, version }).delete();
  await db('registry_deletions').insert({ model_id: modelId, version, deleted_by: actor });
}

/** Deletes a model with its versions and disabled subscriptions; a tombstone keeps its id. */
export async function deleteModel(db: Db, modelId: string, actor: string | null): Promise<void> {
  await models(db).where({ id: modelId }).delete();
  await db('registry_deletions').insert({ model_id: modelId, version: null, deleted_by: actor });
}

/** When a model id (version omitted) or one of its version strings was deleted, if it was. */
export async function findDeletion(db: Db, modelId: string, version?: string): Promise<Date | undefined> {
  const q = db<{ model_id: string; version: string | null; deleted_at: Date }>('registry_deletions').where({ model_id: modelId });
  if (version === undefined) q.whereNull('version');
  else q.where((w) => w.where({ version }).orWhereNull('version'));
  const row = await q.orderBy('deleted_at').first('deleted_at');
  return row?.deleted_at;
}
