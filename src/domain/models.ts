import { inTransaction } from '../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../db/models.repository';
import * as subs from '../db/subscriptions.repository';
import { requireModel, requireVersion } from './lookups';
import type { FeatureRules } from './features';
import type { UserSchemaCompiler } from './json-schemas';
import { canonicalJson } from './json-schemas';
import { canMoveVersion, VERSION_TRANSITIONS } from './version-status';
import { mapPage, type PageRequest } from '../db/pagination';
import { isUniqueViolation } from '../db/types';
import { uuidv7 } from '../ids';
import { ConflictError, UnprocessableError } from '../errors';
import { toModel, toVersion } from './views';
import type { Schemas } from '../openapi/types';
import { webhookEvents } from '../webhooks/outbox';

type Handlers = repo.ModelRow['handlers'];

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

export function createModelsService(deps: {
  knex: Knex;
  rules: FeatureRules;
  schemas: UserSchemaCompiler;
  inProcessNames: () => string[];
}) {
  const { knex, rules, schemas } = deps;

  function checkHandlers(handlers: Handlers | undefined): void {
    if (!handlers) return;
    const known = deps.inProcessNames();
    for (const kind of ['training', 'inference'] as const) {
      const h = handlers[kind] as { type: string; name?: string };
      if (h.type === 'in_process' && !known.includes(h.name!)) {
        throw new UnprocessableError(
          `handlers.${kind}.name: no in-process implementation named "${h.name}"; known: ${known.join(', ') || 'none'}`,
        );
      }
    }
  }

  function checkContracts(contracts: repo.HandlerContracts | null | undefined): void {
    for (const kind of ['training', 'inference'] as const) {
      for (const field of ['input_schema', 'output_schema'] as const) {
        const schema = contracts?.[kind]?.[field];
        if (schema === undefined) continue;
        const problem = schemas.check(schema);
        if (problem) throw new UnprocessableError(`handler_contracts.${kind}.${field} ${problem}`);
      }
    }
  }

  async function envelope(db: Knex, modelId: string) {
    const model = await requireModel(db, modelId);
    const version = await repo.newestVersion(db, modelId);
    return { model: toModel(model), version: version ? toVersion(version) : null };
  }

  return {
    /** A model is born with its first version, `pending`, in one transaction. A duplicate id is a 409. */
    async create(body: CreateModelBody) {
      checkHandlers(body.handlers);
      checkContracts(body.handler_contracts);
      const features = body.features ?? [];
      rules.assertValidDefinitions(features);
      const id = body.id ?? uuidv7();
      try {
        await inTransaction(knex, async (trx) => {
          await repo.insertModel(trx, {
            id,
            name: body.name,
            description: body.description,
            metadata: body.metadata,
            handlers: body.handlers,
            handler_contracts: body.handler_contracts ?? null,
          });
          await repo.insertVersion(trx, {
            model_id: id,
            version: body.version ?? '1',
            description: body.version_description ?? '',
            metadata: body.version_metadata ?? {},
            status: 'pending',
            features,
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`model ${id} already exists`);
        throw err;
      }
      return envelope(knex, id);
    },

    async get(modelId: string) {
      const found = await repo.findModelWithNewestVersion(knex, modelId);
      if (!found) return envelope(knex, modelId); // answers the 404
      return { model: toModel(found.model), version: found.version ? toVersion(found.version) : null };
    },

    list: async (page: PageRequest, filter: { name?: string; status?: string }) =>
      mapPage(await repo.listModels(knex, page, filter), toModel),

    /** Marks dependent subscriptions stale when what they rely on changes (see staleningChange). */
    async update(modelId: string, changes: UpdateModelBody) {
      checkHandlers(changes.handlers);
      checkContracts(changes.handler_contracts);
      const stale = await inTransaction(knex, async (trx) => {
        const before = await repo.lockModel(trx, modelId);
        if (!before) await requireModel(trx, modelId);
        await repo.updateModel(trx, modelId, changes);
        const stale = staleningChange(before!, changes) ? await subs.markStale(trx, modelId) : [];
        await webhookEvents.subscriptionsStale(trx, stale); // webhooks (#16): outbox rows in this transaction
        return stale;
      });
      return { ...(await envelope(knex, modelId)), stale_subscriptions: stale };
    },

    async createVersion(modelId: string, body: Schemas['CreateVersionRequest']) {
      rules.assertValidDefinitions(body.features);
      await requireModel(knex, modelId);
      try {
        const row = await repo.insertVersion(knex, {
          model_id: modelId,
          version: body.version,
          description: body.description ?? '',
          metadata: body.metadata ?? {},
          status: 'pending',
          features: body.features,
        });
        return toVersion(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`version ${body.version} of model ${modelId} already exists`);
        throw err;
      }
    },

    async getVersion(modelId: string, version: string) {
      return toVersion(await requireVersion(knex, modelId, version));
    },

    async listVersions(modelId: string, page: PageRequest, status?: string) {
      await requireModel(knex, modelId);
      return mapPage(await repo.listVersions(knex, modelId, page, status), toVersion);
    },

    async setVersionStatus(modelId: string, version: string, status: repo.VersionStatus) {
      return inTransaction(knex, async (trx) => {
        const current = await repo.lockVersion(trx, modelId, version);
        if (!current) await requireVersion(trx, modelId, version);
        if (!canMoveVersion(current!.status, status)) {
          const allowed = VERSION_TRANSITIONS[current!.status];
          throw new ConflictError(
            `version ${version} is ${current!.status} and cannot become ${status}; allowed: ${allowed.join(', ') || 'none'}${status === 'training' ? ' (start training with POST .../train)' : ''}`,
          );
        }
        const updated = await repo.setVersionStatus(trx, modelId, version, status);
        if (status !== current!.status) await webhookEvents.versionStatusChanged(trx, modelId, version); // webhooks (#16)
        return toVersion(updated);
      });
    },
  };
}
