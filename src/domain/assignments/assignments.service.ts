import type { Knex } from 'knex';
import { DEFAULT_ASSIGNMENT_KEY } from './assignment-keys';
import * as repo from '../../db/assignments.repository';
import * as servicesRepo from '../../db/services.repository';
import { lockDomain, touchDomain, type DomainRow } from '../../db/domains.repository';
import { canonicalJson } from '../../canonical-json';
import { newestVersion, findModel } from '../../db/models.repository';
import { requireDomain, requireService, requireAssignableVersion } from '../common';
import type { FeatureRules } from '../common';
import { formatFeatureProblems } from '../common';
import { freezeIncompatibilities } from '../common';
import { mapPage, PageRequest } from '../../paging';
import { AssignmentBlockedError, BlockingService, ConflictError, InvalidInputError, NotFoundError, UnprocessableError } from '../../errors';
import type { Db } from '../../db/types';
import { toAssignment, toDomain } from '../common';
import type { Schemas } from '../../openapi/types';
import { webhookEvents } from '../webhooks';
import { emptyPreview, inChangeTransaction, UNATTRIBUTED, type ChangeContext, type ChangePreview } from '../common';
import type { AssignmentCompatibility, Compatibility } from '../models';
import { isRolloutRole, rolloutSettings } from './rollout-settings';
import { activeChallengers } from '../../db/rollouts.repository';
import { findAliasForShare } from '../../db/aliases.repository';

/** An assignment upsert as the API takes it (the keyed routes; the collection routes add `assignment_key`). */
export type AssignmentBody = Schemas['AssignmentBody'];

/** The domain's active default assignment, or undefined when "no model is assigned". */
export async function activeDefault(db: Db, domainUuid: string, domainId: string) {
  return repo.findActive(db, { domainUuid, domainId }, DEFAULT_ASSIGNMENT_KEY);
}

/** The `at` instant (its RFC 3339 form checked by the request validator); a leap second (23:59:60) Date cannot hold is a 400. */
function parseInstant(at: string): Date {
  const instant = new Date(at);
  if (Number.isNaN(instant.getTime())) {
    throw new InvalidInputError(`query parameter at must be an RFC 3339 date-time with an offset, e.g. 2026-12-20T10:00:00Z; got "${at}"`);
  }
  return instant;
}

export function createAssignmentsService(deps: { knex: Knex; rules: FeatureRules; compatibility: Compatibility }) {
  const { knex, rules, compatibility } = deps;

  /** Archives the previous active revision under the key and inserts the new one (caller holds the scope lock). */
  async function writeRevision(trx: Knex.Transaction, scope: repo.Scope, key: string, body: AssignmentBody, actor: string | null) {
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
    await webhookEvents.assignmentChanged(trx, row, scope); // the webhook event's outbox row commits with the change
    return row;
  }

  /**
   * The freeze check of a default assignment: apply service_updates (validated against the target freeze),
   * then every non-departed service must satisfy the freeze, or the whole call is refused.
   */
  async function applyDefaultFreeze(
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
  async function upsertDomainIn(trx: Knex.Transaction, domain: DomainRow, key: string, body: AssignmentBody, change: ChangeContext) {
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
    const report = await compatibility.forAssignment(trx, scope, key, version);
    if (isDefault && (body.status ?? 'active') === 'active') {
      await applyDefaultFreeze(trx, domain.domain_uuid, body, version.features, preview);
    }
    return answer(await writeRevision(trx, scope, key, checked, change.actor), scope, report, preview, change);
  }

  async function upsertDomain(clientId: string, domainId: string, key: string, body: AssignmentBody, change: ChangeContext = UNATTRIBUTED) {
    const domain = await requireDomain(knex, clientId, domainId);
    return inChangeTransaction(knex, change, (trx) => upsertDomainIn(trx, domain, key, body, change));
  }

  async function upsertService(
    clientId: string,
    domainId: string,
    serviceId: string,
    key: string,
    body: AssignmentBody,
    change: ChangeContext = UNATTRIBUTED,
  ) {
    if (body.service_updates?.length) throw new UnprocessableError('service_updates is honoured on the domain default assignment only');
    if (isRolloutRole(body.role)) {
      throw new InvalidInputError(`role: ${body.role} is a domain-scope role; a service-scoped assignment may not be a ${body.role}`);
    }
    const domain = await requireDomain(knex, clientId, domainId);
    const service = await requireService(knex, domain, serviceId);
    if (domain.status !== 'active') throw new UnprocessableError(`domain ${domainId} is not active`);
    if (!(await activeDefault(knex, domain.domain_uuid, domainId)))
      throw new UnprocessableError(`domain ${domainId} has no model assigned`);
    const scope = { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId };
    return inChangeTransaction(knex, change, async (trx) => {
      await checkFollowedAlias(trx, body);
      return upsertServiceIn(trx, domain, scope, key, body, change);
    });
  }

  /** The service upsert inside the caller's transaction: the service lock, the freeze check, the new revision. */
  async function upsertServiceIn(
    trx: Knex.Transaction,
    domain: DomainRow,
    scope: repo.Scope & { serviceId: string },
    key: string,
    body: AssignmentBody,
    change: ChangeContext,
  ) {
    const version = await requireAssignableVersion(trx, body.model_id, body.model_version);
    const locked = await requireService(trx, domain, scope.serviceId, true);
    const problems = rules.valueProblems(version.features, locked.provided_features);
    if (problems.length && (body.status ?? 'active') === 'active') {
      throw new UnprocessableError(
        `feature contract mismatch with ${body.model_id}@${body.model_version}: ${formatFeatureProblems(problems)}`,
      );
    }
    const report = await compatibility.forAssignment(trx, scope, key, version);
    return answer(await writeRevision(trx, scope, key, body, change.actor), scope, report, emptyPreview(), change);
  }

  /** An assignment that follows an alias starts at the version the alias points at now (422 otherwise). */
  async function checkFollowedAlias(trx: Knex.Transaction, body: AssignmentBody): Promise<void> {
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
  async function repointIn(trx: Knex.Transaction, row: repo.ModelAssignmentRow, version: string, change: ChangeContext) {
    const body: AssignmentBody = {
      model_id: row.model_id,
      model_version: version,
      follows_alias: row.follows_alias,
      role: row.role,
      settings: row.settings,
      metadata: row.metadata,
    };
    const domain = await requireDomain(trx, row.client_id, row.domain_id);
    if (!row.service_uuid || !row.service_id) return upsertDomainIn(trx, domain, row.assignment_key, body, change);
    const scope = { domainUuid: domain.domain_uuid, domainId: domain.domain_id, serviceUuid: row.service_uuid, serviceId: row.service_id };
    return upsertServiceIn(trx, domain, scope, row.assignment_key, body, change);
  }

  async function resolveScope(clientId: string, domainId: string, serviceId?: string): Promise<repo.Scope> {
    const domain = await requireDomain(knex, clientId, domainId);
    if (!serviceId) return { domainUuid: domain.domain_uuid, domainId };
    const service = await requireService(knex, domain, serviceId);
    return { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId };
  }

  return {
    upsertDomain,
    /** The domain upsert inside the caller's transaction (a promotion: src/domain/assignments/rollouts.service.ts). */
    upsertDomainIn,
    upsertService,
    repointIn,
    resolveScope,

    /** POST .../model/assign: the default assignment to the model's newest active version; returns the Domain. */
    async assignModel(clientId: string, domainId: string, modelId: string, change: ChangeContext = UNATTRIBUTED) {
      if (!(await findModel(knex, modelId))) throw new UnprocessableError(`model ${modelId} does not exist`);
      const version = await newestVersion(knex, modelId, 'active');
      if (!version) throw new UnprocessableError(`model ${modelId} has no active version`);
      const domain = await requireDomain(knex, clientId, domainId);
      const body = { model_id: modelId, model_version: version.version };
      // The revision and the domain's touch in one transaction, so a dry run rolls both back.
      return inChangeTransaction(knex, change, async (trx) => {
        const { compatibility: report, preview, ...assignment } = await upsertDomainIn(trx, domain, DEFAULT_ASSIGNMENT_KEY, body, change);
        return {
          ...toDomain(await touchDomain(trx, domain.domain_uuid)),
          assignment,
          compatibility: report,
          ...(preview ? { preview } : {}),
        };
      });
    },

    async getActive(clientId: string, domainId: string, key: string, serviceId?: string) {
      const scope = await resolveScope(clientId, domainId, serviceId);
      const row = await repo.findActive(knex, scope, key);
      if (!row) throw new NotFoundError(`no active assignment under key ${key}`);
      return toAssignment(row, scope);
    },

    async list(clientId: string, domainId: string, page: PageRequest, status: 'active' | 'archived' | 'all', serviceId?: string) {
      const scope = await resolveScope(clientId, domainId, serviceId);
      return mapPage(await repo.listAssignments(knex, scope, page, status), (r) => toAssignment(r, scope));
    },

    /** For each key: the service's own active assignment if it has one, else the domain's. */
    /** With `at`: the revisions in force at that instant (time travel), the service's own before the domain's. */
    async effective(clientId: string, domainId: string, serviceId: string, page: PageRequest, at?: string) {
      const instant = at === undefined ? undefined : parseInstant(at);
      const scope = (await resolveScope(clientId, domainId, serviceId)) as Required<repo.Scope>;
      const rows = instant
        ? await repo.effectiveAssignmentsAt(knex, scope, instant, page)
        : await repo.effectiveAssignments(knex, scope, page);
      return mapPage(rows, (r) => toAssignment(r, scope));
    },
  };
}

export type AssignmentsService = ReturnType<typeof createAssignmentsService>;
