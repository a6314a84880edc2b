import type { Knex } from 'knex';
import * as models from '../../db/models.repository';
import * as tags from '../../db/model-tags.repository';
import { inTransaction } from '../../db/transaction';
import { InvalidInputError, NotFoundError } from '../../errors';
import { MAX_TAGS } from '../../openapi/schemas/model-tags';
import { requireModel, requireVersion } from '../common';
import { toModel, toVersion } from '../common';

/** A new key past the bound is a 400 naming the field; a changed value of a key already set always fits. */
function assertRoom(current: Record<string, string>, key: string, what: string): void {
  if (Object.hasOwn(current, key) || Object.keys(current).length < MAX_TAGS) return;
  throw new InvalidInputError(`tag_key: ${what} has ${MAX_TAGS} tags, the most it may have; delete one before adding ${key}`);
}

function assertSet(current: Record<string, string>, key: string, what: string): void {
  if (!Object.hasOwn(current, key)) throw new NotFoundError(`${what} has no tag ${key}`);
}

/**
 * Tags of models and versions, one key at a time, under the row's lock so that two writers never pass the bound
 * together. A version's tags change whatever its status: they label it, they are not what it is (its artifacts).
 */
export function createModelTagsService(deps: { knex: Knex }) {
  const { knex } = deps;

  async function onModel(modelId: string, change: (trx: Knex.Transaction, current: Record<string, string>) => Promise<void>) {
    return inTransaction(knex, async (trx) => {
      const model = (await models.lockModel(trx, modelId)) ?? (await requireModel(trx, modelId));
      await change(trx, model.tags);
      return toModel((await models.findModel(trx, modelId))!);
    });
  }

  async function onVersion(
    modelId: string,
    version: string,
    change: (trx: Knex.Transaction, current: Record<string, string>) => Promise<models.VersionRow>,
  ) {
    return inTransaction(knex, async (trx) => {
      const row = (await models.lockVersion(trx, modelId, version)) ?? (await requireVersion(trx, modelId, version));
      return toVersion(await change(trx, row.tags));
    });
  }

  return {
    setModelTag: (modelId: string, key: string, value: string) =>
      onModel(modelId, async (trx, current) => {
        assertRoom(current, key, `model ${modelId}`);
        await tags.setModelTag(trx, modelId, key, value);
      }),

    deleteModelTag: (modelId: string, key: string) =>
      onModel(modelId, async (trx, current) => {
        assertSet(current, key, `model ${modelId}`);
        await tags.deleteModelTag(trx, modelId, key);
      }),

    setVersionTag: (modelId: string, version: string, key: string, value: string) =>
      onVersion(modelId, version, async (trx, current) => {
        assertRoom(current, key, `version ${modelId}@${version}`);
        return tags.setVersionTag(trx, modelId, version, key, value);
      }),

    deleteVersionTag: (modelId: string, version: string, key: string) =>
      onVersion(modelId, version, async (trx, current) => {
        assertSet(current, key, `version ${modelId}@${version}`);
        return tags.deleteVersionTag(trx, modelId, version, key);
      }),
  };
}
