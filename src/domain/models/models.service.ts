import { inTransaction } from '../../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../../db/models.repository';
import * as subs from '../../db/subscriptions.repository';
import { requireModel } from '../common';
import type { FeatureRules } from '../common';
import type { UserSchemaCompiler } from '../common';
import { canonicalJson } from '../common';
import { isUniqueViolation } from '../../db/types';
import { uuidv7 } from '../../ids';
import { ConflictError } from '../../errors';
import { toModel, toVersion } from '../common';
import type { Schemas } from '../../openapi/types';
import type { Outbox } from '../webhooks';
import { emptyPreview, inChangeTransaction, UNATTRIBUTED, type ChangeContext } from '../common';
import { narrowReport, type Compatibility } from './compatibility';
import type { SecretBox } from '../../secrets/secret-box';
import type { TargetPolicy } from '../../webhooks/target-policy';
import { checkArtifacts, checkContracts, checkHandlers, ensureHandlerSecret, refuseDeleted } from './model-checks';
import { createModelVersions } from './model-versions.service';

export type CreateModelBody = Schemas['CreateModelRequest'];
export type UpdateModelBody = Schemas['UpdateModelRequest'];

/** Whether an update makes subscriptions stale: contract changes when contracts are set, else handler changes. */
export function staleningChange(before: repo.ModelRow, changes: UpdateModelBody): boolean {
  const contractsSet = before.handler_contracts != null || changes.handler_contracts != null;
  if (contractsSet) {
    return changes.handler_contracts !== undefined && canonicalJson(changes.handler_contracts) !== canonicalJson(before.handler_contracts);
  }
  return changes.handlers !== undefined && canonicalJson(changes.handlers) !== canonicalJson(before.handlers);
}

async function envelope(db: Knex | Knex.Transaction, modelId: string) {
  const model = await requireModel(db, modelId);
  const version = await repo.newestVersion(db, modelId);
  return { model: toModel(model), version: version ? toVersion(version) : null };
}

/** The model's row and its first version's, `pending`, inside the caller's transaction. */
async function insertModelWithFirstVersion(
  trx: Knex.Transaction,
  id: string,
  body: CreateModelBody,
  features: NonNullable<CreateModelBody['features']>,
  actor: string | null,
): Promise<void> {
  await repo.insertModel(trx, {
    id,
    name: body.name,
    description: body.description,
    metadata: body.metadata,
    handlers: body.handlers,
    handler_contracts: body.handler_contracts ?? null,
    tags: body.tags,
  });
  await repo.insertVersion(trx, {
    model_id: id,
    version: body.version ?? '1',
    description: body.version_description ?? '',
    metadata: body.version_metadata ?? {},
    status: 'pending',
    features,
    artifacts: body.version_artifacts,
    source: body.version_source ?? null,
    tags: body.version_tags,
    created_by: actor,
  });
}

export function createModelsService(deps: {
  knex: Knex;
  rules: FeatureRules;
  schemas: UserSchemaCompiler;
  inProcessNames: () => string[];
  compatibility: Compatibility;
  /** What an `http` handler's url may target: the outbound webhooks' policy (SSRF guard). */
  policy: TargetPolicy;
  /** Seals the `http` handlers' signing secret before it is stored; the plain secret is in one answer only. */
  secrets: Pick<SecretBox, 'seal'>;
  /** Where the registry's events (version status, stale subscriptions) are written, with the change. */
  outbox: Outbox;
}) {
  const { knex, rules, schemas, compatibility, outbox } = deps;

  return {
    /** A model is born with its first version, `pending`, in one transaction. A duplicate id is a 409. */
    async create(body: CreateModelBody, change: ChangeContext = UNATTRIBUTED) {
      await checkHandlers(deps, body.handlers);
      checkContracts(schemas, body.handler_contracts);
      checkArtifacts(body.version_artifacts, 'version_artifacts');
      const features = body.features ?? [];
      rules.assertValidDefinitions(features);
      const id = body.id ?? uuidv7();
      await refuseDeleted(knex, id);
      let secret: { http_handler_secret?: string } = {};
      try {
        await inTransaction(knex, async (trx) => {
          await insertModelWithFirstVersion(trx, id, body, features, change.actor);
          secret = await ensureHandlerSecret(deps.secrets, trx, id, body.handlers);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`model ${id} already exists`);
        throw err;
      }
      return { ...(await envelope(knex, id)), ...secret };
    },

    async get(modelId: string) {
      const found = await repo.findModelWithNewestVersion(knex, modelId);
      if (!found) return envelope(knex, modelId); // answers the 404
      return { model: toModel(found.model), version: found.version ? toVersion(found.version) : null };
    },

    /**
     * Marks dependent subscriptions stale when what they rely on changes (see staleningChange). A change of
     * handler_contracts answers a compatibility report: the input schemas' changes against every active
     * assignment and every subscription payload targeting the model.
     */
    async update(modelId: string, changes: UpdateModelBody, change: ChangeContext = UNATTRIBUTED) {
      await checkHandlers(deps, changes.handlers);
      checkContracts(schemas, changes.handler_contracts);
      return inChangeTransaction(knex, change, async (trx) => {
        const before = await repo.lockModel(trx, modelId);
        if (!before) await requireModel(trx, modelId);
        const report =
          changes.handler_contracts !== undefined
            ? await compatibility.forContracts(trx, modelId, before!.handler_contracts, changes.handler_contracts ?? null)
            : undefined;
        await repo.updateModel(trx, modelId, changes);
        const secret = await ensureHandlerSecret(deps.secrets, trx, modelId, changes.handlers);
        const stale = staleningChange(before!, changes) ? await subs.markStale(trx, modelId) : [];
        await outbox(trx).subscriptionsStale(stale); // the webhook events' outbox rows commit with the change
        return {
          ...(await envelope(trx, modelId)),
          stale_subscriptions: stale,
          ...(report ? { compatibility: narrowReport(report, change.visibleTenants) } : {}),
          ...(change.dryRun ? { preview: { ...emptyPreview(), stale_subscriptions: stale } } : {}),
          // A dry run rolls the secret back: showing it would show one that never verifies.
          ...(change.dryRun ? {} : secret),
        };
      });
    },

    ...createModelVersions(deps),
  };
}
