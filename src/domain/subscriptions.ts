import type { Knex } from 'knex';
import * as repo from '../db/subscriptions.repository';
import { findModel } from '../db/models.repository';
import { requireModel } from './lookups';
import type { UserSchemaCompiler } from './json-schemas';
import { mapPage, type PageRequest } from '../paging';
import { NotFoundError, UnprocessableError } from '../errors';
import { toSubscription } from './views';
import type { Schemas } from '../openapi/types';

export type CreateSubscriptionBody = Schemas['CreateSubscriptionRequest'];

export function createSubscriptionsService(deps: { knex: Knex; schemas: UserSchemaCompiler }) {
  const { knex, schemas } = deps;

  async function assertStoredInputFits(targetModelId: string, sub: Pick<repo.SubscriptionRow, 'input_source' | 'input'>) {
    const target = await findModel(knex, targetModelId);
    if (!target) throw new UnprocessableError(`target model ${targetModelId} does not exist`);
    const schema = target.handler_contracts?.inference?.input_schema;
    if (sub.input_source !== 'stored' || schema === undefined) return;
    const problem = schemas.validate(schema, sub.input ?? {});
    if (problem) throw new UnprocessableError(`input does not match the inference input_schema of ${targetModelId}: ${problem}`);
  }

  async function requireSubscription(modelId: string, subscriptionId: string) {
    const row = await repo.findSubscription(knex, subscriptionId);
    if (!row || row.source_model_id !== modelId) throw new NotFoundError(`subscription ${subscriptionId} not found on model ${modelId}`);
    return row;
  }

  return {
    async create(sourceModelId: string, body: CreateSubscriptionBody, actor: string | null = null) {
      await requireModel(knex, sourceModelId);
      const input = body.input ?? null;
      await assertStoredInputFits(body.target_model_id, { input_source: body.input_source, input });
      const row = await repo.insertSubscription(knex, {
        source_model_id: sourceModelId,
        target_model_id: body.target_model_id,
        trigger_event: body.trigger_event,
        target_action: body.target_action,
        input_source: body.input_source,
        input,
        label: body.label ?? '',
        created_by: actor,
      });
      return toSubscription(row);
    },
    async get(modelId: string, subscriptionId: string) {
      return toSubscription(await requireSubscription(modelId, subscriptionId));
    },
    async list(modelId: string, page: PageRequest, status?: string) {
      await requireModel(knex, modelId);
      return mapPage(await repo.listSubscriptions(knex, modelId, page, status), toSubscription);
    },
    /** Re-activating re-validates the stored input against the target's current contract. */
    async setStatus(modelId: string, subscriptionId: string, status: 'active' | 'disabled', actor: string | null = null) {
      const row = await requireSubscription(modelId, subscriptionId);
      if (status === 'active') await assertStoredInputFits(row.target_model_id, row);
      return toSubscription(await repo.setSubscriptionStatus(knex, subscriptionId, status, actor));
    },
    async disable(modelId: string, subscriptionId: string, actor: string | null = null) {
      await requireSubscription(modelId, subscriptionId);
      return toSubscription(await repo.setSubscriptionStatus(knex, subscriptionId, 'disabled', actor));
    },
  };
}
