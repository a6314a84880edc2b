import { randomUUID } from 'node:crypto';
import { Db, table } from './types';
import { paginate, paginateByKey } from './pagination';
import { PageRequest, Page } from '../paging';
import type { FeatureDefinition } from '../shapes';
import type { AssignmentRow, Scope } from '../domain/assignments';

// The assignment records are the domain's (src/domain/assignments/assignment.view.ts); the repository returns them.
export type { AssignmentRow, Scope };

const assignments = (db: Db) => table<AssignmentRow>(db, 'assignments');

function inScope(db: Db, scope: Scope) {
  const q = assignments(db).where({ domain_uuid: scope.domainUuid });
  return scope.serviceUuid ? q.where({ service_uuid: scope.serviceUuid }) : q.whereNull('service_uuid');
}

export async function findActive(db: Db, scope: Scope, key: string): Promise<AssignmentRow | undefined> {
  return inScope(db, scope).where({ assignment_key: key, status: 'active' }).first();
}

/**
 * The active domain-scope assignment under the key with its version's feature freeze, share-locking the domain row
 * (so assignment and feature changes of the domain wait), in one statement: the read every service job start makes.
 */
export async function shareLockActiveWithFreeze(
  db: Db,
  domainUuid: string,
  key: string,
): Promise<(AssignmentRow & { version_features: FeatureDefinition[] }) | undefined> {
  return assignments(db)
    .join('domains', 'domains.domain_uuid', 'assignments.domain_uuid')
    .join('model_versions', function () {
      this.on('model_versions.model_id', 'assignments.model_id').andOn('model_versions.version', 'assignments.model_version');
    })
    .where({ 'assignments.domain_uuid': domainUuid, 'assignments.assignment_key': key, 'assignments.status': 'active' })
    .whereNull('assignments.service_uuid')
    .forShare('domains')
    .first('assignments.*', 'model_versions.features as version_features');
}

/** Archives the active revision under the key, if any, in the name of `actor`; returns how many rows it archived. */
export async function archiveActive(db: Db, scope: Scope, key: string, actor: string | null = null): Promise<number> {
  return inScope(db, scope)
    .where({ assignment_key: key, status: 'active' })
    .update({ status: 'archived', updated_at: db.fn.now(), archived_at: db.fn.now(), archived_by: actor });
}

export type NewRevision = Pick<
  AssignmentRow,
  'assignment_key' | 'model_id' | 'model_version' | 'status' | 'role' | 'settings' | 'metadata'
> & { follows_alias?: string | null };

export async function insertRevision(db: Db, scope: Scope, r: NewRevision, actor: string | null = null): Promise<AssignmentRow> {
  // now() is the transaction's start: the revision it replaces was archived at this very instant.
  const [row] = await assignments(db)
    .insert({
      assignment_id: randomUUID(),
      domain_uuid: scope.domainUuid,
      service_uuid: scope.serviceUuid ?? null,
      ...r,
      created_by: actor,
      activated_at: r.status === 'active' ? db.fn.now() : null,
      archived_at: r.status === 'archived' ? db.fn.now() : null,
      archived_by: r.status === 'archived' ? actor : null,
      settings: JSON.stringify(r.settings),
      metadata: JSON.stringify(r.metadata),
    })
    .returning('*');
  return row;
}

export async function listAssignments(db: Db, scope: Scope, page: PageRequest, status: 'active' | 'archived' | 'all') {
  const q = inScope(db, scope);
  if (status !== 'all') q.where({ status });
  return paginate<AssignmentRow>(q, page, 'assignment_id', 'assignments');
}

/** Active assignments of the service and of its domain; the service's override the domain's key by key. */
/** The active assignment per key, the service's own before the domain's; a page ordered by key. */
export async function effectiveAssignments(db: Db, scope: Required<Scope>, page: PageRequest): Promise<Page<AssignmentRow>> {
  const perKey = assignments(db)
    .distinctOn('assignment_key')
    .where({ domain_uuid: scope.domainUuid, status: 'active' })
    .andWhere((q) => q.whereNull('service_uuid').orWhere({ service_uuid: scope.serviceUuid }))
    .orderBy([{ column: 'assignment_key' }, { column: 'service_uuid', nulls: 'last' }]);
  return paginateByKey<AssignmentRow>(db.select('*').from(perKey.as('effective')), page, 'assignment_key');
}

/** Per key, the revision in force at `at`: the service's own before the domain's; a page ordered by key. */
export async function effectiveAssignmentsAt(db: Db, scope: Required<Scope>, at: Date, page: PageRequest): Promise<Page<AssignmentRow>> {
  const perKey = assignments(db)
    .distinctOn('assignment_key')
    .where({ domain_uuid: scope.domainUuid })
    .andWhere((q) => q.whereNull('service_uuid').orWhere({ service_uuid: scope.serviceUuid }))
    .andWhere('activated_at', '<=', at)
    .andWhere((q) => q.whereNull('archived_at').orWhere('archived_at', '>', at))
    .orderBy([{ column: 'assignment_key' }, { column: 'service_uuid', nulls: 'last' }]);
  return paginateByKey<AssignmentRow>(db.select('*').from(perKey.as('effective')), page, 'assignment_key');
}

export interface ModelAssignmentRow extends AssignmentRow {
  client_id: string;
  domain_id: string;
  service_id: string | null;
}

/** At most this many active assignments are checked in one compatibility report. */
export const COMPATIBILITY_LIMIT = 1000;

/** The active assignments (domain and service scope, every tenant) that bind `modelId` (only `version`, when given). */
export async function activeAssignmentsOfModel(db: Db, modelId: string, version?: string): Promise<ModelAssignmentRow[]> {
  const q = db('assignments as a');
  if (version !== undefined) q.where({ 'a.model_version': version });
  return q
    .join('domains as d', 'd.domain_uuid', 'a.domain_uuid')
    .leftJoin('services as s', 's.service_uuid', 'a.service_uuid')
    .where({ 'a.model_id': modelId, 'a.status': 'active' })
    .select('a.*', 'd.client_id', 'd.domain_id', 's.service_id')
    .orderBy([
      { column: 'd.client_id' },
      { column: 'd.domain_id' },
      { column: 's.service_id', nulls: 'first' },
      { column: 'a.assignment_key' },
    ])
    .limit(COMPATIBILITY_LIMIT);
}

export async function hasRevisions(db: Db, scope: Scope, key: string): Promise<boolean> {
  return Boolean(await inScope(db, scope).where({ assignment_key: key }).first('assignment_id'));
}

/** The active assignments (every tenant) that follow an alias, in a fixed order so concurrent moves lock alike. */
export async function activeFollowers(db: Db, modelId: string, alias: string): Promise<ModelAssignmentRow[]> {
  return db('assignments as a')
    .join('domains as d', 'd.domain_uuid', 'a.domain_uuid')
    .leftJoin('services as s', 's.service_uuid', 'a.service_uuid')
    .where({ 'a.model_id': modelId, 'a.follows_alias': alias, 'a.status': 'active' })
    .select('a.*', 'd.client_id', 'd.domain_id', 's.service_id')
    .orderBy('a.assignment_id');
}
