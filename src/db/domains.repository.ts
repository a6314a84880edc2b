import { randomUUID } from 'node:crypto';
import { Db, table } from './types';
import { paginate } from './pagination';
import { PageRequest } from '../paging';
import type { FeatureDefinition } from '../shapes';

const domains = (db: Db) => table<DomainRow>(db, 'domains');

export interface DomainRow {
  domain_uuid: string;
  client_id: string;
  domain_id: string;
  status: 'not_ready' | 'active';
  created_at: Date;
  updated_at: Date;
}

export async function findDomain(db: Db, clientId: string, domainId: string): Promise<DomainRow | undefined> {
  return domains(db).where({ client_id: clientId, domain_id: domainId }).first();
}

/** The domain with its client's status, in one statement: the first read of a domain-scoped job start. */
export async function findDomainWithClientStatus(
  db: Db,
  clientId: string,
  domainId: string,
): Promise<(DomainRow & { client_status: 'active' | 'suspended' }) | undefined> {
  return domains(db)
    .join('clients', 'clients.client_id', 'domains.client_id')
    .where({ 'domains.client_id': clientId, 'domains.domain_id': domainId })
    .first('domains.*', 'clients.status as client_status');
}

/** Locks the domain row so assignment and feature changes of one domain serialize. */
export async function lockDomain(db: Db, domainUuid: string): Promise<DomainRow | undefined> {
  return domains(db).where({ domain_uuid: domainUuid }).forUpdate().first();
}

export async function insertDomain(db: Db, clientId: string, domainId: string): Promise<DomainRow> {
  const [row] = await domains(db).insert({ domain_uuid: randomUUID(), client_id: clientId, domain_id: domainId }).returning('*');
  return row;
}

export async function setDomainStatus(db: Db, domainUuid: string, status: string): Promise<DomainRow> {
  const [row] = await domains(db).where({ domain_uuid: domainUuid }).update({ status, updated_at: db.fn.now() }).returning('*');
  return row;
}

export async function touchDomain(db: Db, domainUuid: string): Promise<DomainRow> {
  const [row] = await domains(db).where({ domain_uuid: domainUuid }).update({ updated_at: db.fn.now() }).returning('*');
  return row;
}

export async function listDomains(db: Db, clientId: string, page: PageRequest, status?: string) {
  const q = domains(db).where({ client_id: clientId });
  if (status) q.where('status', status);
  return paginate<DomainRow>(q, page, 'domain_uuid', 'domains');
}

export async function getFeatureDefinitions(db: Db, domainUuid: string): Promise<FeatureDefinition[]> {
  return db('feature_definitions').where({ domain_uuid: domainUuid }).orderBy('position').select('name', 'json_schema', 'mandatory');
}

export async function replaceFeatureDefinitions(db: Db, domainUuid: string, features: FeatureDefinition[]): Promise<void> {
  await db('feature_definitions').where({ domain_uuid: domainUuid }).delete();
  if (features.length) {
    await db('feature_definitions').insert(
      features.map((f, position) => ({
        domain_uuid: domainUuid,
        name: f.name,
        json_schema: f.json_schema,
        mandatory: f.mandatory,
        position,
      })),
    );
  }
}
