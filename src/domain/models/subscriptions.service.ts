import type { Knex } from 'knex';
import * as repo from '../../db/subscriptions.repository';
import { findModel } from '../../db/models.repository';
import { requireModel } from '../common';
import type { UserSchemaCompiler } from '../common';
import { mapPage, type PageRequest } from '../../paging';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors';
import { isUniqueViolation } from '../../db/types';
import { toSubscription } from '../common';
import type { Schemas } from '../../openapi/types';

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

  /**
   * A second active subscription identical to another would start its target twice on every completion: refused with
   * the one that exists (the unique index catches a concurrent twin).
   */
  async function refusingTwin<T>(sub: Parameters<typeof repo.findIdenticalActive>[1], write: () => Promise<T>): Promise<T> {
    const twin = async () => {
      const existing = await repo.findIdenticalActive(knex, sub);
      if (existing) {
        throw new ConflictError(
          `an identical active subscription exists: ${existing.subscription_id} (${existing.trigger_event} of ${existing.source_model_id} starts ${existing.target_action} of ${existing.target_model_id}); disable it first or change the target or input`,
        );
      }
    };
    await twin();
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err, repo.ONE_ACTIVE_SUBSCRIPTION)) await twin();
      throw err;
    }
  }

  return {
    async create(sourceModelId: string, body: CreateSubscriptionBody, actor: string | null = null) {
      await requireModel(knex, sourceModelId);
      const input = body.input ?? null;
      await assertStoredInputFits(body.target_model_id, { input_source: body.input_source, input });
      const sub = {
        source_model_id: sourceModelId,
        target_model_id: body.target_model_id,
        trigger_event: body.trigger_event,
        target_action: body.target_action,
        input_source: body.input_source,
        input,
      };
      const row = await refusingTwin(sub, () => repo.insertSubscription(knex, { ...sub, label: body.label ?? '', created_by: actor }));
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
      if (status !== 'active' || row.status === 'active') {
        return toSubscription(await repo.setSubscriptionStatus(knex, subscriptionId, status, actor));
      }
      return toSubscription(await refusingTwin(row, () => repo.setSubscriptionStatus(knex, subscriptionId, status, actor)));
    },
    async disable(modelId: string, subscriptionId: string, actor: string | null = null) {
      await requireSubscription(modelId, subscriptionId);
      return toSubscription(await repo.setSubscriptionStatus(knex, subscriptionId, 'disabled', actor));
    },
  };
}
