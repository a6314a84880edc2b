import { inTransaction } from '../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../db/assignments.repository';
import * as servicesRepo from '../db/services.repository';
import { lockDomain, touchDomain } from '../db/domains.repository';
import { newestVersion, findModel } from '../db/models.repository';
import { requireDomain, requireService, requireAssignableVersion } from './lookups';
import type { FeatureRules } from './features';
import { formatFeatureProblems } from './features';
import { freezeIncompatibilities } from './freeze';
import { mapPage, PageRequest } from '../db/pagination';
import { AssignmentBlockedError, BlockingService, NotFoundError, UnprocessableError } from '../errors';
import type { Db } from '../db/types';
import { toAssignment, toDomain } from './views';
import type { Schemas } from '../openapi/types';
import { webhookEvents } from '../webhooks/outbox';

export const DEFAULT_ASSIGNMENT_KEY = 'default';

/** An assignment upsert as the API takes it (the keyed routes; the collection routes add `assignment_key`). */
export type AssignmentBody = Schemas['AssignmentBody'];

/** The domain's active default assignment, or undefined when "no model is assigned". */
export async function activeDefault(db: Db, domainUuid: string, domainId: string) {
  return repo.findActive(db, { domainUuid, domainId }, DEFAULT_ASSIGNMENT_KEY);
}

export function createAssignmentsService(deps: { knex: Knex; rules: FeatureRules }) {
  const { knex, rules } = deps;

  /** Archives the previous active revision under the key and inserts the new one (caller holds the scope lock). */
  async function writeRevision(trx: Knex.Transaction, scope: repo.Scope, key: string, body: AssignmentBody) {
    await repo.archiveActive(trx, scope, key);
    const row = await repo.insertRevision(trx, scope, {
      assignment_key: key,
      model_id: body.model_id,
      model_version: body.model_version,
      status: body.status ?? 'active',
      role: body.role ?? null,
      settings: body.settings ?? {},
      metadata: body.metadata ?? {},
    });
    await webhookEvents.assignmentChanged(trx, row, scope); // webhooks (#16): outbox row in this transaction
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
      await servicesRepo.updateService(trx, byId.get(serviceId)!.service_uuid, {
        provided_features: provided,
        resolved_features: rules.resolve(frozen, provided),
      });
    }
  }

  async function upsertDomain(clientId: string, domainId: string, key: string, body: AssignmentBody) {
    const domain = await requireDomain(knex, clientId, domainId);
    const isDefault = key === DEFAULT_ASSIGNMENT_KEY;
    if (body.service_updates?.length && !isDefault) {
      throw new UnprocessableError('service_updates is honoured on the domain default assignment only');
    }
    const version = await requireAssignableVersion(knex, body.model_id, body.model_version);
    const scope = { domainUuid: domain.domain_uuid, domainId };
    const row = await inTransaction(knex, async (trx) => {
      await lockDomain(trx, domain.domain_uuid);
      if (isDefault && (body.status ?? 'active') === 'active') await applyDefaultFreeze(trx, domain.domain_uuid, body, version.features);
      return writeRevision(trx, scope, key, body);
    });
    return toAssignment(row, scope);
  }

  async function upsertService(clientId: string, domainId: string, serviceId: string, key: string, body: AssignmentBody) {
    if (body.service_updates?.length) throw new UnprocessableError('service_updates is honoured on the domain default assignment only');
    const domain = await requireDomain(knex, clientId, domainId);
    const service = await requireService(knex, domain, serviceId);
    if (domain.status !== 'active') throw new UnprocessableError(`domain ${domainId} is not active`);
    if (!(await activeDefault(knex, domain.domain_uuid, domainId)))
      throw new UnprocessableError(`domain ${domainId} has no model assigned`);
    const version = await requireAssignableVersion(knex, body.model_id, body.model_version);
    const scope = { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId };
    const row = await inTransaction(knex, async (trx) => {
      const locked = await requireService(trx, domain, serviceId, true);
      const problems = rules.valueProblems(version.features, locked.provided_features);
      if (problems.length && (body.status ?? 'active') === 'active') {
        throw new UnprocessableError(
          `feature contract mismatch with ${body.model_id}@${body.model_version}: ${formatFeatureProblems(problems)}`,
        );
      }
      return writeRevision(trx, scope, key, body);
    });
    return toAssignment(row, scope);
  }

  async function resolveScope(clientId: string, domainId: string, serviceId?: string): Promise<repo.Scope> {
    const domain = await requireDomain(knex, clientId, domainId);
    if (!serviceId) return { domainUuid: domain.domain_uuid, domainId };
    const service = await requireService(knex, domain, serviceId);
    return { domainUuid: domain.domain_uuid, domainId, serviceUuid: service.service_uuid, serviceId };
  }

  return {
    upsertDomain,
    upsertService,
    resolveScope,

    /** POST .../model/assign: the default assignment to the model's newest active version; returns the Domain. */
    async assignModel(clientId: string, domainId: string, modelId: string) {
      if (!(await findModel(knex, modelId))) throw new UnprocessableError(`model ${modelId} does not exist`);
      const version = await newestVersion(knex, modelId, 'active');
      if (!version) throw new UnprocessableError(`model ${modelId} has no active version`);
      await upsertDomain(clientId, domainId, DEFAULT_ASSIGNMENT_KEY, { model_id: modelId, model_version: version.version });
      const domain = await requireDomain(knex, clientId, domainId);
      return toDomain(await touchDomain(knex, domain.domain_uuid));
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
    async effective(clientId: string, domainId: string, serviceId: string, page: PageRequest) {
      const scope = (await resolveScope(clientId, domainId, serviceId)) as Required<repo.Scope>;
      return mapPage(await repo.effectiveAssignments(knex, scope, page), (r) => toAssignment(r, scope));
    },
  };
}

export type AssignmentsService = ReturnType<typeof createAssignmentsService>;
