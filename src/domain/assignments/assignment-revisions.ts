import type { Knex } from 'knex';
import { DEFAULT_ASSIGNMENT_KEY } from './assignment-keys';
import * as repo from '../../db/assignments.repository';
import * as servicesRepo from '../../db/services.repository';
import { lockDomain, type DomainRow } from '../../db/domains.repository';
import { canonicalJson } from '../../canonical-json';
import { requireDomain, requireService, requireAssignableVersion } from '../common';
import type { FeatureRules } from '../common';
import { formatFeatureProblems } from '../common';
import { freezeIncompatibilities } from '../common';
import { AssignmentBlockedError, BlockingService, ConflictError, InvalidInputError, UnprocessableError } from '../../errors';
import { toAssignment } from '../common';
import type { Schemas } from '../../openapi/types';
import type { Outbox } from '../webhooks';
import { emptyPreview, type ChangeContext, type ChangePreview } from '../common';
import type { AssignmentCompatibility, Compatibility } from '../models';
import { isRolloutRole, rolloutSettings } from './rollout-settings';
import { activeChallengers } from '../../db/rollouts.repository';
import { findAliasForShare } from '../../db/aliases.repository';

/** An assignment upsert as the API takes it (the keyed routes; the collection routes add `assignment_key`). */
export type AssignmentBody = Schemas['AssignmentBody'];

/** What the writing of a revision checks against: the feature rules and the compatibility report. */
export interface RevisionDeps {
  rules: FeatureRules;
  compatibility: Compatibility;
  /** Where the `assignment.changed` events are written, with the revision. */
  outbox: Outbox;
}

/** Archives the previous active revision under the key and inserts the new one (caller holds the scope lock). */
async function writeRevision(
  outbox: Outbox,
  trx: Knex.Transaction,
  scope: repo.Scope,
  key: string,
  body: AssignmentBody,
  actor: string | null,
) {
  await repo.archiveActive(trx, scope, key, actor);
  const row = await repo.insertRevision(
    trx,
    scope,
    {
      assignment_key: key,
      model_id: body.model_id,
      model_version: body.model_version,
      status: body.status ?? 'active',
      role: body.role ?? null,
      follows_alias: body.follows_alias ?? null,
      settings: body.settings ?? {},
      metadata: body.metadata ?? {},
    },
    actor,
  );
  await outbox(trx).assignmentChanged(row, scope); // the webhook event's outbox row commits with the change
  return row;
}

/**
 * The freeze check of a default assignment: apply service_updates (validated against the target freeze),
 * then every non-departed service must satisfy the freeze, or the whole call is refused.
 */
async function applyDefaultFreeze(
  rules: FeatureRules,
  trx: Knex.Transaction,
  domainUuid: string,
  body: AssignmentBody,
  frozen: Parameters<FeatureRules['resolve']>[0],
  preview: ChangePreview,
) {
  const services = await servicesRepo.nonDepartedServices(trx, domainUuid);
  const byId = new Map(services.map((s) => [s.service_id, s]));
  const patched = new Map<string, Record<string, unknown>>();
  for (const update of body.service_updates ?? []) {
    const service = byId.get(update.service_id);
    if (!service) throw new UnprocessableError(`service_updates: service ${update.service_id} is unknown or departed`);
    if (patched.has(update.service_id)) throw new UnprocessableError(`service_updates: service ${update.service_id} is listed twice`);
    patched.set(update.service_id, { ...service.provided_features, ...update.static_features });
  }
  const blocking: BlockingService[] = [];
  for (const service of services) {
    const provided = patched.get(service.service_id) ?? service.provided_features;
    for (const issue of freezeIncompatibilities(rules, frozen, provided)) {
      blocking.push({ service_id: service.service_id, feature: issue.feature, value: issue.value });
    }
  }
  if (blocking.length) {
    throw new AssignmentBlockedError(
      `${new Set(blocking.map((b) => b.service_id)).size} non-departed service(s) have provided_features incompatible with ${body.model_id}@${body.model_version}`,
      blocking,
    );
  }
  for (const [serviceId, provided] of patched) {
    const before = byId.get(serviceId)!;
    const resolved = rules.resolve(frozen, provided);
    await servicesRepo.updateService(trx, before.service_uuid, { provided_features: provided, resolved_features: resolved });
    if (canonicalJson(resolved) !== canonicalJson(before.resolved_features)) {
      preview.resolved_features_changes.push({ service_id: serviceId, before: before.resolved_features, after: resolved });
    }
  }
}

/**
 * The rules of a canary or shadow revision (docs/progressive-delivery.md): settings checked field by field (400), an
 * active primary to challenge under `settings.primary_key` that is not the candidate itself (400), one canary per
 * primary key (409). Returns the body with its settings normalized; other roles pass unchanged.
 */
async function rolloutBody(trx: Knex.Transaction, scope: repo.Scope, key: string, body: AssignmentBody): Promise<AssignmentBody> {
  if (!isRolloutRole(body.role)) return body;
  const settings = rolloutSettings(body.role, key, body.settings ?? {});
  if ((body.status ?? 'active') !== 'active') return { ...body, settings };
  const primaryKey = settings.primary_key;
  const primary = await repo.findActive(trx, scope, primaryKey);
  if (!primary) throw new UnprocessableError(`settings.primary_key: no active domain assignment under key ${primaryKey} to challenge`);
  if (isRolloutRole(primary.role)) throw new InvalidInputError(`settings.primary_key: ${primaryKey} is a ${primary.role}, not a primary`);
  if (primary.model_id === body.model_id && primary.model_version === body.model_version) {
    throw new InvalidInputError(
      `model_version: the candidate ${body.model_id}@${body.model_version} is already the primary under ${primaryKey}`,
    );
  }
  if (body.role === 'canary') {
    const other = (await activeChallengers(trx, scope.domainUuid, primaryKey, 'canary')).find((r) => r.assignment_key !== key);
    if (other) {
      throw new ConflictError(`canary ${other.assignment_key} already challenges key ${primaryKey}; promote it or roll it back first`);
    }
  }
  return { ...body, settings };
}

/** The response of an upsert: the revision and its compatibility report, plus the preview on a dry run. */
function answer(
  row: repo.AssignmentRow,
  scope: repo.Scope,
  report: AssignmentCompatibility,
  preview: ChangePreview,
  change: ChangeContext,
) {
  return { ...toAssignment(row, scope), compatibility: report, ...(change.dryRun ? { preview } : {}) };
}

/** The domain upsert inside the caller's transaction: the domain lock, the freeze check, the new revision. */
export async function upsertDomainIn(
  deps: RevisionDeps,
  trx: Knex.Transaction,
  domain: DomainRow,
  key: string,
  body: AssignmentBody,
  change: ChangeContext,
) {
  const isDefault = key === DEFAULT_ASSIGNMENT_KEY;
  if (body.service_updates?.length && !isDefault) {
    throw new UnprocessableError('service_updates is honoured on the domain default assignment only');
  }
  const version = await requireAssignableVersion(trx, body.model_id, body.model_version);
  await checkFollowedAlias(trx, body);
  const scope = { domainUuid: domain.domain_uuid, domainId: domain.domain_id };
  await lockDomain(trx, domain.domain_uuid);
  const checked = await rolloutBody(trx, scope, key, body);
  const preview = emptyPreview();
  const report = await deps.compatibility.forAssignment(trx, scope, key, version);
  if (isDefault && (body.status ?? 'active') === 'active') {
    await applyDefaultFreeze(deps.rules, trx, domain.domain_uuid, body, version.features, preview);
  }
  return answer(await writeRevision(deps.outbox, trx, scope, key, checked, change.actor), scope, report, preview, change);
}

/** The service upsert inside the caller's transaction: the service lock, the freeze check, the new revision. */
export async function upsertServiceIn(
  deps: RevisionDeps,
  trx: Knex.Transaction,
  domain: DomainRow,
  scope: repo.Scope & { serviceId: string },
  key: string,
  body: AssignmentBody,
  change: ChangeContext,
) {
  const version = await requireAssignableVersion(trx, body.model_id, body.model_version);
  const locked = await requireService(trx, domain, scope.serviceId, true);
  const problems = deps.rules.valueProblems(version.features, locked.provided_features);
  if (problems.length && (body.status ?? 'active') === 'active') {
    throw new UnprocessableError(
      `feature contract mismatch with ${body.model_id}@${body.model_version}: ${formatFeatureProblems(problems)}`,
    );
  }
  const report = await deps.compatibility.forAssignment(trx, scope, key, version);
  return answer(await writeRevision(deps.outbox, trx, scope, key, body, change.actor), scope, report, emptyPreview(), change);
}

/** An assignment that follows an alias starts at the version the alias points at now (422 otherwise). */
export async function checkFollowedAlias(trx: Knex.Transaction, body: AssignmentBody): Promise<void> {
  if (!body.follows_alias) return;
  const alias = await findAliasForShare(trx, body.model_id, body.follows_alias);
  if (!alias) throw new UnprocessableError(`follows_alias: model ${body.model_id} has no alias ${body.follows_alias}`);
  if (alias.model_version !== body.model_version) {
    throw new UnprocessableError(
      `follows_alias: alias ${body.follows_alias} points at version ${alias.model_version}, not ${body.model_version}`,
    );
  }
}

/**
 * A following assignment re-pointed at `version` as a new revision of its key, under the upsert's own checks (the
 * domain default's freeze over its services, a service's contract). Throws what the upsert would: the caller
 * gathers the refusals of every follower before it refuses the alias move.
 */
export async function repointIn(
  deps: RevisionDeps,
  trx: Knex.Transaction,
  row: repo.ModelAssignmentRow,
  version: string,
  change: ChangeContext,
) {
  const body: AssignmentBody = {
    model_id: row.model_id,
    model_version: version,
    follows_alias: row.follows_alias,
    role: row.role,
    settings: row.settings,
    metadata: row.metadata,
  };
  const domain = await requireDomain(trx, row.client_id, row.domain_id);
  if (!row.service_uuid || !row.service_id) return upsertDomainIn(deps, trx, domain, row.assignment_key, body, change);
  const scope = { domainUuid: domain.domain_uuid, domainId: domain.domain_id, serviceUuid: row.service_uuid, serviceId: row.service_id };
  return upsertServiceIn(deps, trx, domain, scope, row.assignment_key, body, change);
}
