import { randomUUID } from 'node:crypto';
import { Db, table } from './types';
import { paginate } from './pagination';
import { PageRequest } from '../paging';
import type { SubscriptionStore } from '../domain/ports';
import type { SubscriptionRow, SubscriptionStatus, SubscriptionWithTarget } from '../domain/models';

// The subscription records are the domain's (src/domain/models/subscription.view.ts); the repository returns them.
export type { SubscriptionRow, SubscriptionStatus, SubscriptionWithTarget };

const subscriptions = (db: Db) => table<SubscriptionRow>(db, 'event_subscriptions');

export type NewSubscription = Omit<
  SubscriptionRow,
  'subscription_id' | 'status' | 'created_at' | 'updated_at' | 'status_changed_by' | 'status_changed_at'
>;

export async function insertSubscription(db: Db, s: NewSubscription): Promise<SubscriptionRow> {
  const [row] = await subscriptions(db)
    .insert({ ...s, subscription_id: randomUUID(), input: s.input === null ? null : JSON.stringify(s.input) })
    .returning('*');
  return row;
}

/** The unique index that allows one active subscription per source, event, target, action and input. */
export const ONE_ACTIVE_SUBSCRIPTION = 'event_subscriptions_one_active';

/** The active subscription doing exactly what `s` would (same source, event, target, action and input), if any. */
export async function findIdenticalActive(
  db: Db,
  s: Pick<SubscriptionRow, 'source_model_id' | 'trigger_event' | 'target_model_id' | 'target_action' | 'input_source' | 'input'>,
): Promise<SubscriptionRow | undefined> {
  return subscriptions(db)
    .where({
      source_model_id: s.source_model_id,
      trigger_event: s.trigger_event,
      target_model_id: s.target_model_id,
      target_action: s.target_action,
      input_source: s.input_source,
      status: 'active',
    })
    .whereRaw(`coalesce(input, 'null'::jsonb) = ?::jsonb`, [JSON.stringify(s.input ?? null)])
    .first();
}

export async function findSubscription(db: Db, subscriptionId: string): Promise<SubscriptionRow | undefined> {
  return subscriptions(db).where({ subscription_id: subscriptionId }).first();
}

export async function setSubscriptionStatus(
  db: Db,
  subscriptionId: string,
  status: SubscriptionStatus,
  actor: string | null = null,
): Promise<SubscriptionRow> {
  const [row] = await subscriptions(db)
    .where({ subscription_id: subscriptionId })
    .update({ status, updated_at: db.fn.now(), status_changed_by: actor, status_changed_at: db.fn.now() })
    .returning('*');
  return row;
}

/**
 * The subscriptions a finished job's event reaches, found by the job id in one statement: active ones fire; stale
 * ones are reported as failed entries, disabled ones not at all.
 */
export async function triggeredByJob(db: Db, jobId: string, triggerEvent: string): Promise<SubscriptionRow[]> {
  return subscriptions(db)
    .where('source_model_id', db('model_jobs').select('model_id').where({ job_id: jobId }))
    .where('trigger_event', triggerEvent)
    .whereIn('status', ['active', 'stale'])
    .orderBy('created_at');
}

/** The subscriptions a source model's event fires (active and stale ones: stale ones are reported), with their targets, in one statement. */
export async function triggeredWithTargets(db: Db, sourceModelId: string, triggerEvent: string): Promise<SubscriptionWithTarget[]> {
  return db('event_subscriptions as s')
    .leftJoin('models as m', 'm.id', 's.target_model_id')
    .where({ 's.source_model_id': sourceModelId, 's.trigger_event': triggerEvent })
    .whereIn('s.status', ['active', 'stale'])
    .orderBy([{ column: 's.created_at' }, { column: 's.subscription_id' }])
    .select(
      's.*',
      db.raw('m.id is not null as target_exists'),
      'm.handler_contracts as target_contracts',
      db.raw(`(select v.version from model_versions v where v.model_id = s.target_model_id and v.status = 'active'
               order by v.created_at desc, v.version desc limit 1) as target_version`),
    );
}

/** Marks active subscriptions that depend on `modelId` (as source or target) stale; returns their ids. */
/** The subscription store of cascade planning (src/domain/ports/job-stores.port.ts `SubscriptionStore`) on this connection or transaction. */
export function subscriptionStore(db: Db): SubscriptionStore {
  return { triggeredWithTargets: (sourceModelId: string, triggerEvent: string) => triggeredWithTargets(db, sourceModelId, triggerEvent) };
}

export async function markStale(db: Db, modelId: string): Promise<string[]> {
  const rows = await subscriptions(db)
    .where({ status: 'active' })
    .andWhere((q) => q.where({ source_model_id: modelId }).orWhere({ target_model_id: modelId }))
    .update({ status: 'stale', updated_at: db.fn.now() })
    .returning('subscription_id');
  return rows.map((r: { subscription_id: string }) => r.subscription_id);
}

/** Subscriptions whose target action runs `modelId` (their stored payloads follow its contract); disabled ones too. */
export async function subscriptionsTargeting(db: Db, modelId: string): Promise<SubscriptionRow[]> {
  return subscriptions(db).where({ target_model_id: modelId }).orderBy('created_at').limit(1000);
}

export async function listSubscriptions(db: Db, sourceModelId: string, page: PageRequest, status?: string) {
  const q = subscriptions(db).where({ source_model_id: sourceModelId });
  if (status) q.where('status', status);
  return paginate<SubscriptionRow>(q, page, 'subscription_id', 'event_subscriptions');
}
