import type { Register } from './types';
import { page } from '../http/routing';
import type { createSubscriptionsService } from '../domain/subscriptions';

export function registerSubscriptionRoutes(route: Register, subscriptions: ReturnType<typeof createSubscriptionsService>) {
  route('createSubscription', async ({ params, body }) => subscriptions.create(params.model_id, body));

  route('listSubscriptions', async (r) => subscriptions.list(r.params.model_id, page(r), r.query.status));

  route('getSubscription', async ({ params: p }) => subscriptions.get(p.model_id, p.subscription_id));

  route('setSubscriptionStatus', async ({ params: p, body }) => subscriptions.setStatus(p.model_id, p.subscription_id, body.status));

  route('deleteSubscription', async ({ params: p }) => subscriptions.disable(p.model_id, p.subscription_id));
}
