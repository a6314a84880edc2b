import type { Schemas } from '../../openapi/types';
import type { Knex } from 'knex';
import { inTransaction } from '../../db/transaction';

/** Who makes a change and whether it is only previewed (`?dry_run=true`). */
export interface ChangeContext {
  /** The caller, recorded in audit fields (`created_by`, `archived_by`, `status_changed_by`). */
  actor: string | null;
  dryRun: boolean;
  /** Tenants whose assignments the answer may name (reports, previews); undefined: every tenant. */
  visibleTenants?: string[];
}

/** A change made by the service itself or by a caller that is not known: written, not previewed. */
export const UNATTRIBUTED: ChangeContext = { actor: null, dryRun: false };

export interface ServiceFeaturesChange {
  service_id: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** Whether a row of `clientId` may appear in an answer to a caller who sees `visible` (undefined: every tenant). */
export function shows(visible: string[] | undefined, clientId: string): boolean {
  return visible === undefined || visible.includes(clientId);
}

/** What a change would do, answered by a dry run next to the body the real call would have answered. */
export type ChangePreview = Schemas['ChangePreview'];

export function emptyPreview(): ChangePreview {
  return {
    dry_run: true,
    blocking_services: [],
    resolved_features_changes: [],
    inference: { would_run: false, service_ids: [] },
    stale_subscriptions: [],
  };
}

class DryRunRollback<T> extends Error {
  constructor(readonly value: T) {
    super('dry run: rolled back');
  }
}

/**
 * Runs a change in one transaction. On a dry run every statement runs (so every check and constraint
 * answers as it would) and the transaction is then rolled back, returning what `work` built inside it.
 * Jobs are staged in the transaction and launched only after a commit, so a dry run never starts a workflow;
 * webhook outbox rows roll back with everything else.
 */
export async function inChangeTransaction<T>(
  knex: Knex,
  change: Pick<ChangeContext, 'dryRun'>,
  work: (trx: Knex.Transaction) => Promise<T>,
) {
  if (!change.dryRun) return inTransaction(knex, work);
  try {
    await inTransaction(knex, async (trx) => {
      throw new DryRunRollback(await work(trx));
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: a dry run always rolls back');
}
