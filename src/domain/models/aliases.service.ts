import type { Knex } from 'knex';
import * as repo from '../../db/aliases.repository';
import { findVersion, findVersionForShare, lockModel } from '../../db/models.repository';
import { inTransaction } from '../../db/transaction';
import { AssignmentBlockedError, ConflictError, InvalidInputError, NotFoundError, UnprocessableError } from '../../errors';
import { mapPage, type PageRequest } from '../../paging';
import type { Schemas } from '../../openapi/types';
import { requireModel } from '../common';
import type { Outbox } from '../webhooks';
import { assignRefusal } from '../common';
import { toVersion } from '../common';
import { emptyPreview, inChangeTransaction, UNATTRIBUTED, type ChangeContext } from '../common';
import { activeFollowers } from '../../db/assignments.repository';
import type { createAssignmentsService } from '../assignments';

type Repointer = Pick<ReturnType<typeof createAssignmentsService>, 'repointIn'>;

/** Lower case, so `Champion` and `champion` are never two aliases; a letter first, so `2` always means a version. */
export const ALIAS_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;

/** Why a name cannot be an alias, or undefined. */
export function aliasNameProblem(name: string): string | undefined {
  if (!ALIAS_PATTERN.test(name)) return `alias ${JSON.stringify(name)} must be 1–63 characters of a-z 0-9 _ -, starting with a letter`;
  return undefined;
}

export function toAlias(row: repo.AliasRow) {
  return {
    model_id: row.model_id,
    alias: row.alias,
    version: row.model_version,
    updated_by: row.updated_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Every assignment that follows the alias, re-pointed at `version` as a new revision, all or none: the refusals of
 * each (the services that block a domain default, a service's contract) are gathered first and refuse the move.
 */
async function repointFollowers(
  assignments: Repointer,
  trx: Knex.Transaction,
  modelId: string,
  alias: string,
  version: string,
  change: ChangeContext,
) {
  const followers = await activeFollowers(trx, modelId, alias);
  const refusals: string[] = [];
  const repointed: Awaited<ReturnType<Repointer['repointIn']>>[] = [];
  for (const row of followers) {
    try {
      repointed.push(await assignments.repointIn(trx, row, version, change));
    } catch (err) {
      const where = `assignment ${row.assignment_id} (${[row.client_id, row.domain_id, row.service_id].filter(Boolean).join('/')}, key ${row.assignment_key})`;
      if (err instanceof AssignmentBlockedError) {
        const services = [...new Set(err.blockingServices.map((b) => b.service_id))];
        refusals.push(
          `${where}: blocked by services ${services.join(', ')} (${err.blockingServices.map((b) => `${b.service_id}.${b.feature}`).join(', ')})`,
        );
      } else if (err instanceof UnprocessableError) {
        refusals.push(`${where}: ${err.message}`);
      } else throw err;
    }
  }
  if (refusals.length) {
    throw new ConflictError(
      `alias ${alias} cannot move to version ${version}: ${refusals.length} following assignment(s) refuse it; ${refusals.join('; ')}`,
    );
  }
  return repointed;
}

/** The alias, or 404 (the model's own 404 when the model is missing). */
async function requireAlias(db: Knex | Knex.Transaction, modelId: string, alias: string) {
  const row = await repo.findAlias(db, modelId, alias);
  if (!row) {
    await requireModel(db, modelId);
    throw new NotFoundError(`model ${modelId} has no alias ${alias}`);
  }
  return row;
}

/** The alias moved to `body.version` in the caller's transaction, with every assignment that follows it. */
async function moveAlias(
  { assignments, outbox }: { assignments: Repointer; outbox: Outbox },
  trx: Knex.Transaction,
  named: { modelId: string; alias: string },
  body: Schemas['AliasRequest'],
  change: ChangeContext,
) {
  const { modelId, alias } = named;
  // The model lock orders a new alias against a version created under the same name.
  if (!(await lockModel(trx, modelId))) await requireModel(trx, modelId);
  if (await findVersion(trx, modelId, alias))
    throw new InvalidInputError(`alias ${alias} collides with version ${alias} of model ${modelId}`);
  const current = await repo.lockAlias(trx, modelId, alias);
  if (body.from_version !== undefined && (current?.model_version ?? null) !== body.from_version) {
    throw new ConflictError(
      `alias ${alias} points at ${current ? `version ${current.model_version}` : 'nothing'}, not ${body.from_version}: another move came first`,
    );
  }
  const target = await findVersionForShare(trx, modelId, body.version);
  if (!target) throw new UnprocessableError(`version ${body.version} of model ${modelId} does not exist`);
  const refusal = assignRefusal(`${modelId}@${body.version}`, target.status, 'aliased');
  if (refusal) throw new UnprocessableError(refusal);
  const preview = change.dryRun ? { preview: emptyPreview() } : {};
  if (current && current.model_version === body.version)
    return { ...toAlias(current), resolved: toVersion(target), repointed: [], ...preview };
  const row = await repo.writeAlias(trx, modelId, alias, body.version, change.actor);
  await outbox(trx).aliasMoved(toAlias(row), current?.model_version ?? null);
  const repointed = await repointFollowers(assignments, trx, modelId, alias, body.version, change);
  return { ...toAlias(row), resolved: toVersion(target), repointed, ...preview };
}

/**
 * Aliases: a model's names for its versions. A move is one row update under the alias's row lock; a caller that says
 * which version it expects to move from (`from_version`) gets a 409 when another move won meanwhile, never a
 * half-moved alias.
 */
export function createAliasesService(deps: { knex: Knex; assignments: Repointer; outbox: Outbox }) {
  const { knex, outbox } = deps;

  return {
    async put(modelId: string, alias: string, body: Schemas['AliasRequest'], change: ChangeContext = UNATTRIBUTED) {
      const problem = aliasNameProblem(alias);
      if (problem) throw new InvalidInputError(problem);
      return inChangeTransaction(knex, change, (trx) => moveAlias(deps, trx, { modelId, alias }, body, change));
    },

    /** The alias resolved: the version it points at, in full. */
    async get(modelId: string, alias: string) {
      const row = await requireAlias(knex, modelId, alias);
      const version = await findVersion(knex, modelId, row.model_version);
      return { ...toAlias(row), resolved: toVersion(version!) };
    },

    async list(modelId: string, page: PageRequest) {
      await requireModel(knex, modelId);
      return mapPage(await repo.listAliases(knex, modelId, page), toAlias);
    },

    async remove(modelId: string, alias: string) {
      return inTransaction(knex, async (trx) => {
        const row = await repo.lockAlias(trx, modelId, alias);
        if (!row) await requireAlias(trx, modelId, alias);
        await repo.deleteAlias(trx, modelId, alias);
        await outbox(trx).aliasMoved({ ...toAlias(row!), version: null }, row!.model_version);
        return toAlias(row!);
      });
    },
  };
}
