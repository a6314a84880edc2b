import { inTransaction } from '../../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../../db/models.repository';
import { requireModel, requireVersion } from '../common';
import type { FeatureRules } from '../common';
import { canMoveVersion, VERSION_TRANSITIONS } from '../common';
import { mapPage, type PageRequest } from '../../paging';
import { isUniqueViolation } from '../../db/types';
import { ConflictError, NotFoundError } from '../../errors';
import { assertArchivable } from './retirement.service';
import { findAlias } from '../../db/aliases.repository';
import { toVersion } from '../common';
import type { Schemas } from '../../openapi/types';
import type { Outbox } from '../webhooks';
import { emptyPreview, inChangeTransaction, shows, UNATTRIBUTED, type ChangeContext } from '../common';
import { narrowReport, type Compatibility } from './compatibility';
import { activeAssignmentsOfModel } from '../../db/assignments.repository';
import { checkArtifacts, refuseDeleted } from './model-checks';

/** Versions whose artifacts are fixed: once active, a changed artifact is a new version. */
const SETTLED_STATUSES: readonly repo.VersionStatus[] = ['active', 'deprecated', 'archived'];

/** A version's move to `status` inside the caller's transaction; on a dry run, with the assignments that bind it. */
async function moveVersionStatus(
  outbox: Outbox,
  trx: Knex.Transaction,
  modelId: string,
  version: string,
  status: repo.VersionStatus,
  change: ChangeContext,
) {
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
  if (status !== current!.status) await outbox(trx).versionStatusChanged(modelId, version);
  if (!change.dryRun) return toVersion(updated);
  const bound = await activeAssignmentsOfModel(trx, modelId, version);
  return {
    ...toVersion(updated),
    preview: {
      ...emptyPreview(),
      assignments: bound.filter((a) => shows(change.visibleTenants, a.client_id)).map((a) => a.assignment_id),
    },
  };
}

/** The versions of a model: their registration, artifacts, statuses and compatibility reports. */
export function createModelVersions(deps: { knex: Knex; rules: FeatureRules; compatibility: Compatibility; outbox: Outbox }) {
  const { knex, rules, compatibility } = deps;

  return {
    /** The new version, with a compatibility report of its freeze against every active assignment of the model. */
    async createVersion(modelId: string, body: Schemas['CreateVersionRequest'], change: ChangeContext = UNATTRIBUTED) {
      rules.assertValidDefinitions(body.features);
      checkArtifacts(body.artifacts, 'artifacts');
      const model = await requireModel(knex, modelId);
      await refuseDeleted(knex, modelId, body.version);
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
      return inChangeTransaction(knex, change, (trx) => moveVersionStatus(deps.outbox, trx, modelId, version, status, change));
    },
  };
}
