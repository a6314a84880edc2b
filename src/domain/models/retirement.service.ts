import type { Knex } from 'knex';
import * as repo from '../../db/models.repository';
import { registryReferences, type RegistryReferences } from '../../db/registry-references.repository';
import { inTransaction } from '../../db/transaction';
import { ConflictError } from '../../errors';
import { requireModel, requireVersion } from '../common';
import type { Outbox } from '../webhooks';
import { toModel, toVersion } from '../common';
import { UNATTRIBUTED, type ChangeContext } from '../common';

/** The references in words, for a 409: `active assignments <id> (acme/web/checkout, key default); schedules s1`. */
export function describeReferences(refs: RegistryReferences): string | undefined {
  const parts: string[] = [];
  if (refs.assignments.length) {
    const named = refs.assignments.map(
      (a) => `${a.assignment_id} (${[a.client_id, a.domain_id, a.service_id].filter(Boolean).join('/')}, key ${a.assignment_key})`,
    );
    parts.push(`active assignments ${named.join(', ')}`);
  }
  if (refs.aliases.length) parts.push(`aliases ${refs.aliases.join(', ')}`);
  if (refs.subscriptions.length) parts.push(`subscriptions ${refs.subscriptions.join(', ')}`);
  if (refs.schedules.length) parts.push(`schedules ${refs.schedules.join(', ')}`);
  if (refs.running_jobs.length) parts.push(`unfinished jobs ${refs.running_jobs.join(', ')}`);
  return parts.length ? parts.join('; ') : undefined;
}

/** An archived version runs nowhere: every assignment and alias that binds it must move to another version first (409 naming them). */
export async function assertArchivable(db: Knex.Transaction, modelId: string, version: string): Promise<void> {
  const refs = await registryReferences(db, modelId, version);
  if (!refs.assignments.length && !refs.aliases.length) return;
  const words = describeReferences({ ...refs, subscriptions: [], schedules: [], running_jobs: [] });
  throw new ConflictError(`version ${modelId}@${version} cannot be archived while assigned; move these first: ${words}`);
}

/**
 * Deletion of registry entries nothing uses any more. Refused (409) while anything references them; otherwise the row
 * goes, and the jobs and archived assignment revisions that ran it keep naming it (their history stays readable by
 * job id and in effective-assignments), with a tombstone so the id or string is never registered again.
 */
export function createRetirementService(deps: { knex: Knex; outbox: Outbox }) {
  const { knex, outbox } = deps;
  return {
    async deleteVersion(modelId: string, version: string, change: ChangeContext = UNATTRIBUTED) {
      return inTransaction(knex, async (trx) => {
        const row = await repo.lockVersion(trx, modelId, version);
        if (!row) await requireVersion(trx, modelId, version);
        const words = describeReferences(await registryReferences(trx, modelId, version));
        if (words) throw new ConflictError(`version ${modelId}@${version} is still referenced: ${words}`);
        await repo.deleteVersion(trx, modelId, version, change.actor);
        await outbox(trx).versionDeleted(row!);
        return toVersion(row!);
      });
    },

    async deleteModel(modelId: string, change: ChangeContext = UNATTRIBUTED) {
      return inTransaction(knex, async (trx) => {
        const before = await repo.lockModel(trx, modelId);
        if (!before) await requireModel(trx, modelId);
        const words = describeReferences(await registryReferences(trx, modelId));
        if (words) throw new ConflictError(`model ${modelId} is still referenced: ${words}`);
        await repo.deleteModel(trx, modelId, change.actor);
        await outbox(trx).modelDeleted(before!);
        return toModel(before!);
      });
    },
  };
}
