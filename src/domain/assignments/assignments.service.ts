import type { Knex } from 'knex';
import { DEFAULT_ASSIGNMENT_KEY } from './assignment-keys';
import * as repo from '../../db/assignments.repository';
import { touchDomain, type DomainRow } from '../../db/domains.repository';
import { newestVersion, findModel } from '../../db/models.repository';
import { requireDomain, requireService } from '../common';
import type { FeatureRules } from '../common';
import { InvalidInputError, UnprocessableError } from '../../errors';
import type { Db } from '../../db/types';
import { toDomain } from '../common';
import { inChangeTransaction, UNATTRIBUTED, type ChangeContext } from '../common';
import type { Compatibility } from '../models';
import { isRolloutRole } from './rollout-settings';
import type { Outbox } from '../webhooks';
import { checkFollowedAlias, repointIn, upsertDomainIn, upsertServiceIn, type AssignmentBody } from './assignment-revisions';
import { createAssignmentQueries } from './assignment-queries.service';

/** The domain's active default assignment, or undefined when "no model is assigned". */
export async function activeDefault(db: Db, domainUuid: string, domainId: string) {
  return repo.findActive(db, { domainUuid, domainId }, DEFAULT_ASSIGNMENT_KEY);
}

export function createAssignmentsService(deps: { knex: Knex; rules: FeatureRules; compatibility: Compatibility; outbox: Outbox }) {
  const { knex } = deps;

  async function upsertDomain(clientId: string, domainId: string, key: string, body: AssignmentBody, change: ChangeContext = UNATTRIBUTED) {
    const domain = await requireDomain(knex, clientId, domainId);
    return inChangeTransaction(knex, change, (trx) => upsertDomainIn(deps, trx, domain, key, body, change));
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
      return upsertServiceIn(deps, trx, domain, scope, key, body, change);
    });
  }

  return {
    upsertDomain,
    /** The domain upsert inside the caller's transaction (a promotion: src/domain/assignments/rollouts.service.ts). */
    upsertDomainIn: (trx: Knex.Transaction, domain: DomainRow, key: string, body: AssignmentBody, change: ChangeContext) =>
      upsertDomainIn(deps, trx, domain, key, body, change),
    upsertService,
    /**
     * A following assignment re-pointed at `version` as a new revision of its key, under the upsert's own checks (the
     * domain default's freeze over its services, a service's contract). Throws what the upsert would: the caller
     * gathers the refusals of every follower before it refuses the alias move.
     */
    repointIn: (trx: Knex.Transaction, row: repo.ModelAssignmentRow, version: string, change: ChangeContext) =>
      repointIn(deps, trx, row, version, change),

    /** POST .../model/assign: the default assignment to the model's newest active version; returns the Domain. */
    async assignModel(clientId: string, domainId: string, modelId: string, change: ChangeContext = UNATTRIBUTED) {
      if (!(await findModel(knex, modelId))) throw new UnprocessableError(`model ${modelId} does not exist`);
      const version = await newestVersion(knex, modelId, 'active');
      if (!version) throw new UnprocessableError(`model ${modelId} has no active version`);
      const domain = await requireDomain(knex, clientId, domainId);
      const body = { model_id: modelId, model_version: version.version };
      // The revision and the domain's touch in one transaction, so a dry run rolls both back.
      return inChangeTransaction(knex, change, async (trx) => {
        const {
          compatibility: report,
          preview,
          ...assignment
        } = await upsertDomainIn(deps, trx, domain, DEFAULT_ASSIGNMENT_KEY, body, change);
        return {
          ...toDomain(await touchDomain(trx, domain.domain_uuid)),
          assignment,
          compatibility: report,
          ...(preview ? { preview } : {}),
        };
      });
    },

    ...createAssignmentQueries(deps),
  };
}

export type AssignmentsService = ReturnType<typeof createAssignmentsService>;
