import { assignRefusal } from './version-status';
import type { Db } from '../../db/types';
import { findClient, ClientRow } from '../../db/clients.repository';
import { findDomain, findDomainWithClientStatus, DomainRow } from '../../db/domains.repository';
import { findService, ServiceRow } from '../../db/services.repository';
import { findModel, findVersion, findVersionForShare, ModelRow, VersionRow } from '../../db/models.repository';
import { NotFoundError, UnprocessableError } from '../../errors';

export async function requireClient(db: Db, clientId: string): Promise<ClientRow> {
  const client = await findClient(db, clientId);
  if (!client) throw new NotFoundError(`client ${clientId} not found`);
  return client;
}

/** A suspended client keeps its data readable but starts no new work. */
export function assertClientActive(client: Pick<ClientRow, 'client_id' | 'status'>): void {
  if (client.status === 'suspended') throw new UnprocessableError(`client ${client.client_id} is suspended`);
}

export async function requireDomain(db: Db, clientId: string, domainId: string): Promise<DomainRow> {
  const domain = await findDomain(db, clientId, domainId);
  if (!domain) {
    await requireClient(db, clientId);
    throw new NotFoundError(`domain ${domainId} not found in client ${clientId}`);
  }
  return domain;
}

/** The domain of an active client in one read: 404 for a missing client or domain, 422 for a suspended client. */
export async function requireDomainOfActiveClient(db: Db, clientId: string, domainId: string): Promise<DomainRow> {
  const row = await findDomainWithClientStatus(db, clientId, domainId);
  if (!row) {
    assertClientActive(await requireClient(db, clientId));
    throw new NotFoundError(`domain ${domainId} not found in client ${clientId}`);
  }
  const { client_status, ...domain } = row;
  assertClientActive({ client_id: clientId, status: client_status });
  return domain;
}

export async function requireService(db: Db, domain: DomainRow, serviceId: string, lock = false): Promise<ServiceRow> {
  const service = await findService(db, domain.domain_uuid, serviceId, lock);
  if (!service) throw new NotFoundError(`service ${serviceId} not found in domain ${domain.domain_id}`);
  return service;
}

export async function requireModel(db: Db, modelId: string): Promise<ModelRow> {
  const model = await findModel(db, modelId);
  if (!model) throw new NotFoundError(`model ${modelId} not found`);
  return model;
}

export async function requireVersion(db: Db, modelId: string, version: string): Promise<VersionRow> {
  const row = await findVersion(db, modelId, version);
  if (!row) {
    await requireModel(db, modelId);
    throw new NotFoundError(`version ${version} of model ${modelId} not found`);
  }
  return row;
}

/** For assignments the version is part of the body, so a missing one is a 422, not a 404. */
export async function requireAssignableVersion(db: Db, modelId: string, version: string): Promise<VersionRow> {
  const row = await findVersionForShare(db, modelId, version);
  if (!row) throw new UnprocessableError(`model version ${modelId}@${version} does not exist`);
  const refusal = assignRefusal(`${modelId}@${version}`, row.status);
  if (refusal) throw new UnprocessableError(refusal);
  return row;
}
