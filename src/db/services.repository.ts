import { randomUUID } from 'node:crypto';
import { Db, table } from './types';
import { paginate } from './pagination';
import { PageRequest } from '../paging';
import type { FeatureValues } from '../shapes';
import type { ServiceRow, ServiceStatus } from '../domain/services';

// The service records are the domain's (src/domain/services/service.view.ts); the repository returns them.
export type { ServiceRow, ServiceStatus };

const services = (db: Db) => table<ServiceRow>(db, 'services');

export async function findService(db: Db, domainUuid: string, serviceId: string, lock = false): Promise<ServiceRow | undefined> {
  const q = services(db).where({ domain_uuid: domainUuid, service_id: serviceId });
  if (lock) q.forUpdate();
  return q.first();
}

/** A service by its public ids, in one statement (the read path: no separate domain lookup). */
export async function findServiceByIds(db: Db, clientId: string, domainId: string, serviceId: string): Promise<ServiceRow | undefined> {
  return services(db)
    .join('domains', 'domains.domain_uuid', 'services.domain_uuid')
    .where({ 'domains.client_id': clientId, 'domains.domain_id': domainId, 'services.service_id': serviceId })
    .first('services.*');
}

/** Locks a service row for an update that keeps its keys (so foreign-key checks of job inserts are not blocked). */
export async function lockServiceByUuid(db: Db, serviceUuid: string): Promise<void> {
  await services(db).where({ service_uuid: serviceUuid }).forNoKeyUpdate().first('service_uuid');
}

export async function findServiceByUuid(db: Db, serviceUuid: string): Promise<ServiceRow | undefined> {
  return services(db).where({ service_uuid: serviceUuid }).first();
}

export interface ServiceWrite {
  status: ServiceStatus;
  departure_datetime: string | Date;
  provided_features: FeatureValues;
  resolved_features: FeatureValues;
}

function jsonColumns(w: Partial<ServiceWrite>) {
  return {
    ...w,
    ...(w.provided_features ? { provided_features: JSON.stringify(w.provided_features) } : {}),
    ...(w.resolved_features ? { resolved_features: JSON.stringify(w.resolved_features) } : {}),
  };
}

/** Creates the service, or re-initializes the existing one with the same service_id. */
export async function upsertService(
  db: Db,
  domainUuid: string,
  serviceId: string,
  w: ServiceWrite,
): Promise<{ row: ServiceRow; created: boolean }> {
  const rows = await db.raw<{ rows: (ServiceRow & { created: boolean })[] }>(
    `INSERT INTO services (service_uuid, domain_uuid, service_id, status, departure_datetime, provided_features, resolved_features)
     VALUES (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)
     ON CONFLICT (domain_uuid, service_id) DO UPDATE SET status = EXCLUDED.status,
       departure_datetime = EXCLUDED.departure_datetime, provided_features = EXCLUDED.provided_features,
       resolved_features = EXCLUDED.resolved_features, updated_at = now()
     RETURNING *, (xmax = 0) AS created`,
    [
      randomUUID(),
      domainUuid,
      serviceId,
      w.status,
      w.departure_datetime,
      JSON.stringify(w.provided_features),
      JSON.stringify(w.resolved_features),
    ],
  );
  const { created, ...row } = rows.rows[0];
  return { row, created };
}

export async function updateService(db: Db, serviceUuid: string, w: Partial<ServiceWrite>): Promise<ServiceRow> {
  const [row] = await services(db)
    .where({ service_uuid: serviceUuid })
    .update({ ...jsonColumns(w), updated_at: db.fn.now() })
    .returning('*');
  return row;
}

/** Services whose departure is still ahead: the ones a default assignment must not break. */
export async function nonDepartedServices(db: Db, domainUuid: string): Promise<ServiceRow[]> {
  return services(db).where({ domain_uuid: domainUuid }).where('departure_datetime', '>', db.fn.now()).orderBy('service_id').forUpdate();
}

export async function listServices(db: Db, domainUuid: string, page: PageRequest, filter: { status?: string; departed?: boolean }) {
  const q = services(db).where({ domain_uuid: domainUuid });
  if (filter.status) q.where('status', filter.status);
  if (filter.departed === true) q.where('departure_datetime', '<=', db.fn.now());
  if (filter.departed === false) q.where('departure_datetime', '>', db.fn.now());
  return paginate<ServiceRow>(q, page, 'service_uuid', 'services');
}

/**
 * Sets the status a service's inference job decided, unless a newer inference job of the service exists (its
 * outcome governs). One statement; the updated row, or undefined when a newer job exists.
 */
export async function setStatusFromJob(db: Db, serviceUuid: string, jobId: string, status: ServiceStatus): Promise<ServiceRow | undefined> {
  const newer = db('model_jobs as newer')
    .where({ 'newer.service_uuid': serviceUuid, 'newer.job_type': 'inference' })
    // Cascade and shadow jobs carry their source's service but are not its work: they neither move nor hold the status.
    .whereNotIn('newer.trigger', ['cascade', 'shadow'])
    .whereRaw('(newer.created_at, newer.job_id) > (select created_at, job_id from model_jobs where job_id = ?)', [jobId])
    .select(db.raw('1'));
  const [row] = await services(db)
    .where({ service_uuid: serviceUuid })
    .whereNotExists(newer)
    .update({ status, updated_at: db.fn.now() })
    .returning('*');
  return row;
}
