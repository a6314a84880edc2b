import { inTransaction } from '../../db/transaction';
import type { Knex } from 'knex';
import * as repo from '../../db/domains.repository';
import { requireClient, requireDomain } from '../common';
import type { FeatureDefinition, FeatureRules } from '../common';
import { mapPage, type PageRequest } from '../../paging';
import { isUniqueViolation } from '../../db/types';
import { uuidv7 } from '../../ids';
import { ConflictError } from '../../errors';
import { toDomain } from '../common';
import type { Schemas } from '../../openapi/types';
import { emptyPreview, inChangeTransaction, UNATTRIBUTED, type ChangeContext } from '../common';
import { activeDefault } from '../assignments';
import { findVersion } from '../../db/models.repository';
import { featureContractMismatches } from '../common';

export function createDomainsService(deps: { knex: Knex; rules: FeatureRules }) {
  const { knex, rules } = deps;
  return {
    /** A duplicate domain_id in the client is a 409: the request is well-formed, the name is taken. */
    async create(clientId: string, body: Schemas['CreateDomainRequest']) {
      await requireClient(knex, clientId);
      const features = body.features ?? [];
      rules.assertValidDefinitions(features);
      const domainId = body.domain_id ?? uuidv7();
      try {
        return await inTransaction(knex, async (trx) => {
          const row = await repo.insertDomain(trx, clientId, domainId);
          await repo.replaceFeatureDefinitions(trx, row.domain_uuid, features);
          return toDomain(row);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`domain ${domainId} already exists in client ${clientId}`);
        throw err;
      }
    },
    async get(clientId: string, domainId: string) {
      return toDomain(await requireDomain(knex, clientId, domainId));
    },
    async list(clientId: string, page: PageRequest, status?: string) {
      await requireClient(knex, clientId);
      return mapPage(await repo.listDomains(knex, clientId, page, status), toDomain);
    },
    async setStatus(clientId: string, domainId: string, status: 'not_ready' | 'active') {
      const domain = await requireDomain(knex, clientId, domainId);
      return toDomain(await repo.setDomainStatus(knex, domain.domain_uuid, status));
    },
    async getFeatures(clientId: string, domainId: string) {
      const domain = await requireDomain(knex, clientId, domainId);
      return repo.getFeatureDefinitions(knex, domain.domain_uuid);
    },
    /**
     * Persist-only (spec part 4, rule 1): services keep their stored features and no inference runs. The answer
     * says where the new definitions disagree with the freeze of the active default assignment's version.
     */
    async replaceFeatures(clientId: string, domainId: string, features: FeatureDefinition[], change: ChangeContext = UNATTRIBUTED) {
      rules.assertValidDefinitions(features);
      const domain = await requireDomain(knex, clientId, domainId);
      return inChangeTransaction(knex, change, async (trx) => {
        await repo.lockDomain(trx, domain.domain_uuid);
        await repo.replaceFeatureDefinitions(trx, domain.domain_uuid, features);
        await repo.touchDomain(trx, domain.domain_uuid);
        const assigned = await activeDefault(trx, domain.domain_uuid, domainId);
        const version = assigned ? await findVersion(trx, assigned.model_id, assigned.model_version) : undefined;
        return {
          features: await repo.getFeatureDefinitions(trx, domain.domain_uuid),
          feature_mismatches: version ? featureContractMismatches(features, version.features) : [],
          ...(change.dryRun ? { preview: emptyPreview() } : {}),
        };
      });
    },
  };
}
