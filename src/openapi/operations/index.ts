export type { Operation, Tenancy } from './operation';
export { DRY_RUN_QUERY } from './paths';
import { HEALTH_OPERATIONS } from './health';
import { CLIENTS_OPERATIONS } from './clients';
import { DOMAINS_OPERATIONS } from './domains';
import { SERVICES_OPERATIONS } from './services';
import { MODELS_OPERATIONS } from './models';
import { JOBS_OPERATIONS } from './jobs';
import { SUBSCRIPTIONS_OPERATIONS } from './subscriptions';
import { WEBHOOK_OPERATIONS } from './webhooks';
import { SCHEDULE_OPERATIONS } from './schedules';
import type { Operation } from './operation';

/** Every route of the API, in the document's order: the one table that names its permission, tenancy and schemas. */
export const OPERATIONS: Operation[] = [
  ...HEALTH_OPERATIONS,
  ...CLIENTS_OPERATIONS,
  ...DOMAINS_OPERATIONS,
  ...SERVICES_OPERATIONS,
  ...MODELS_OPERATIONS,
  ...JOBS_OPERATIONS,
  ...SUBSCRIPTIONS_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...SCHEDULE_OPERATIONS,
];

export const OPERATIONS_BY_ID = new Map(OPERATIONS.map((op) => [op.id, op]));

export function operation(id: string): Operation {
  const op = OPERATIONS_BY_ID.get(id);
  if (!op) throw new Error(`unknown operation ${id}`);
  return op;
}

/** `/v2/clients/{client_id}` → `/v2/clients/:client_id` */
export function koaPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
