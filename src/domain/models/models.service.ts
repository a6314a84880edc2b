import { inTransaction } from '../../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../../db/models.repository';
import * as subs from '../../db/subscriptions.repository';
import { requireModel, requireVersion } from '../common';
import type { FeatureRules } from '../common';
import type { UserSchemaCompiler } from '../common';
import { canonicalJson } from '../common';
import { canMoveVersion, VERSION_TRANSITIONS } from '../common';
import { mapPage, type PageRequest } from '../../paging';
import { isUniqueViolation } from '../../db/types';
import { uuidv7 } from '../../ids';
import { ConflictError, InvalidInputError, NotFoundError, UnprocessableError } from '../../errors';
import { artifactsProblem } from './artifacts';
import { assertArchivable } from './retirement.service';
import { findAlias } from '../../db/aliases.repository';
import { toModel, toVersion } from '../common';
import type { Schemas } from '../../openapi/types';
import { webhookEvents } from '../webhooks';
import { emptyPreview, inChangeTransaction, shows, UNATTRIBUTED, type ChangeContext } from '../common';
import { narrowReport, type Compatibility } from './compatibility';
import { activeAssignmentsOfModel } from '../../db/assignments.repository';
import { hasHandlerSecret, writeHandlerSecret } from '../../db/handler-secrets.repository';
import type { SecretBox } from '../../secrets/secret-box';
import { checkTarget, TargetRefused, type TargetPolicy } from '../../webhooks/target-policy';
import { newSecret } from '../../webhooks/signature';
import type { Db } from '../../db/types';

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

/** Refuses artifacts that do not parse (400 naming the field); the request schema cannot say all of it (URIs, unique names). */
function checkArtifacts(artifacts: unknown, field: string): void {
  if (artifacts === undefined) return;
  const problem = artifactsProblem(artifacts, field);
  if (problem) throw new InvalidInputError(problem);
}

/** Versions whose artifacts are fixed: once active, a changed artifact is a new version. */
const SETTLED_STATUSES: readonly repo.VersionStatus[] = ['active', 'deprecated', 'archived'];

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
}) {
  const { knex, rules, schemas, compatibility } = deps;

  async function checkHandlers(handlers: Handlers | undefined): Promise<void> {
    if (!handlers) return;
    const known = deps.inProcessNames();
    for (const kind of ['training', 'inference'] as const) {
      const h = handlers[kind];
      if (h.type === 'in_process' && !known.includes(h.name)) {
        throw new UnprocessableError(
          `handlers.${kind}.name: no in-process implementation named "${h.name}"; known: ${known.join(', ') || 'none'}`,
        );
      }
      if (h.type === 'http') {
        try {
          await checkTarget(h.url, deps.policy);
        } catch (err) {
          if (err instanceof TargetRefused) throw new UnprocessableError(`handlers.${kind}.url refused: ${err.message}`);
          throw err;
        }
      }
    }
  }

  /**
   * The model's first `http` handler gets it a signing secret, answered once (in this response) and never again.
   * Later changes keep the secret the model servers already verify with.
   */
  async function ensureHandlerSecret(db: Db, modelId: string, handlers: Handlers | undefined): Promise<{ http_handler_secret?: string }> {
    if (!handlers || (handlers.training.type !== 'http' && handlers.inference.type !== 'http')) return {};
    if (await hasHandlerSecret(db, modelId)) return {};
    const secret = newSecret();
    await writeHandlerSecret(db, deps.secrets, modelId, secret);
    return { http_handler_secret: secret };
  }

  function checkContracts(contracts: repo.HandlerContracts | null | undefined): void {
    for (const kind of ['training', 'inference'] as const) {
      for (const field of ['input_schema', 'output_schema'] as const) {
        const schema = contracts?.[kind]?.[field];
        if (schema === undefined) continue;
        const problem = schemas.check(schema);
        if (!problem) continue;
        const message = `handler_contracts.${kind}.${field} ${problem.message}`;
        throw problem.unrunnable ? new InvalidInputError(message) : new UnprocessableError(message);
      }
    }
  }

  /** A deleted id or version string is never registered again: the jobs that ran it still name it. */
  async function refuseDeleted(modelId: string, version?: string): Promise<void> {
    const at = await repo.findDeletion(knex, modelId, version);
    if (at) {
      const what = version === undefined ? `model ${modelId}` : `version ${modelId}@${version}`;
      throw new ConflictError(`${what} was deleted at ${at.toISOString()}; its jobs still name it, so pick another`);
    }
  }

  async function envelope(db: Knex | Knex.Transaction, modelId: string) {
    const model = await requireModel(db, modelId);
    const version = await repo.newestVersion(db, modelId);
    return { model: toModel(model), version: version ? toVersion(version) : null };
  }

  return {
    /** A model is born with its first version, `pending`, in one transaction. A duplicate id is a 409. */
    async create(body: CreateModelBody, change: ChangeContext = UNATTRIBUTED) {
      await checkHandlers(body.handlers);
      checkContracts(body.handler_contracts);
      checkArtifacts(body.version_artifacts, 'version_artifacts');
      const features = body.features ?? [];
      rules.assertValidDefinitions(features);
      const id = body.id ?? uuidv7();
      await refuseDeleted(id);
      let secret: { http_handler_secret?: string } = {};
      try {
        await inTransaction(knex, async (trx) => {
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
            created_by: change.actor,
          });
          secret = await ensureHandlerSecret(trx, id, body.handlers);
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
      await checkHandlers(changes.handlers);
      checkContracts(changes.handler_contracts);
      return inChangeTransaction(knex, change, async (trx) => {
        const before = await repo.lockModel(trx, modelId);
        if (!before) await requireModel(trx, modelId);
        const report =
          changes.handler_contracts !== undefined
            ? await compatibility.forContracts(trx, modelId, before!.handler_contracts, changes.handler_contracts ?? null)
            : undefined;
        await repo.updateModel(trx, modelId, changes);
        const secret = await ensureHandlerSecret(trx, modelId, changes.handlers);
        const stale = staleningChange(before!, changes) ? await subs.markStale(trx, modelId) : [];
        await webhookEvents.subscriptionsStale(trx, stale); // the webhook events' outbox rows commit with the change
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

    /** The new version, with a compatibility report of its freeze against every active assignment of the model. */
    async createVersion(modelId: string, body: Schemas['CreateVersionRequest'], change: ChangeContext = UNATTRIBUTED) {
      rules.assertValidDefinitions(body.features);
      checkArtifacts(body.artifacts, 'artifacts');
      const model = await requireModel(knex, modelId);
      await refuseDeleted(modelId, body.version);
      if (await findAlias(knex, modelId, body.version)) {
        throw new ConflictError(`${body.version} is an alias of model ${modelId}; a version string must not be one`);
      }
      try {
        return await inChangeTransaction(knex, change, async (trx) => {
          const row = await repo.insertVersion(trx, {
            model_id: modelId,
            version: body.version,
            description: body.description ?? '',
            metadata: body.metadata ?? {},
            status: 'pending',
            features: body.features,
            artifacts: body.artifacts,
            source: body.source ?? null,
            tags: body.tags,
            created_by: change.actor,
          });
          const report = await compatibility.forVersion(trx, row, model.handler_contracts);
          const shown = narrowReport(report, change.visibleTenants);
          return { ...toVersion(row), compatibility: shown, ...(change.dryRun ? { preview: emptyPreview() } : {}) };
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`version ${body.version} of model ${modelId} already exists`);
        throw err;
      }
    },

    /** The compatibility report of a version (the newest when none is named) against the model's active assignments. */
    async compatibility(modelId: string, version: string | undefined, visibleTenants: string[] | undefined) {
      const model = await requireModel(knex, modelId);
      const row = version === undefined ? await repo.newestVersion(knex, modelId) : await requireVersion(knex, modelId, version);
      if (!row) throw new NotFoundError(`model ${modelId} has no version`);
      return narrowReport(await compatibility.forVersion(knex, row, model.handler_contracts), visibleTenants);
    },

    /** Artifacts and source can change until the version is active; afterwards a changed artifact is a new version (409). */
    async setVersionArtifacts(modelId: string, version: string, body: Schemas['VersionArtifactsRequest']) {
      checkArtifacts(body.artifacts, 'artifacts');
      return inTransaction(knex, async (trx) => {
        const current = await repo.lockVersion(trx, modelId, version);
        if (!current) await requireVersion(trx, modelId, version);
        if (SETTLED_STATUSES.includes(current!.status)) {
          throw new ConflictError(
            `version ${version} is ${current!.status}: its artifacts cannot change; register the changed artifacts as a new version`,
          );
        }
        return toVersion(await repo.setVersionArtifacts(trx, modelId, version, body.artifacts, body.source));
      });
    },

    async getVersion(modelId: string, version: string) {
      return toVersion(await requireVersion(knex, modelId, version));
    },

    async listVersions(modelId: string, page: PageRequest, status?: string) {
      await requireModel(knex, modelId);
      return mapPage(await repo.listVersions(knex, modelId, page, status), toVersion);
    },

    /** On a dry run the preview names the active assignments that bind the version (they keep it either way). */
    async setVersionStatus(modelId: string, version: string, status: repo.VersionStatus, change: ChangeContext = UNATTRIBUTED) {
      return inChangeTransaction(knex, change, async (trx) => {
        const current = await repo.lockVersion(trx, modelId, version);
        if (!current) await requireVersion(trx, modelId, version);
        if (!canMoveVersion(current!.status, status)) {
          const allowed = VERSION_TRANSITIONS[current!.status];
          throw new ConflictError(
            `version ${version} is ${current!.status} and cannot become ${status}; allowed: ${allowed.join(', ') || 'none'}${status === 'training' ? ' (start training with POST .../train)' : ''}`,
          );
        }
        if (status === 'archived' && current!.status !== 'archived') await assertArchivable(trx, modelId, version);
        const updated = await repo.setVersionStatus(trx, modelId, version, status, change.actor);
        if (status !== current!.status) await webhookEvents.versionStatusChanged(trx, modelId, version);
        if (!change.dryRun) return toVersion(updated);
        const bound = await activeAssignmentsOfModel(trx, modelId, version);
        return {
          ...toVersion(updated),
          preview: {
            ...emptyPreview(),
            assignments: bound.filter((a) => shows(change.visibleTenants, a.client_id)).map((a) => a.assignment_id),
          },
        };
      });
    },
  };
}
