import type { Register } from './types';
import { page, changeContext } from '../http/routing';
import type { createSubscriptionsService } from '../domain/models';

export function registerSubscriptionRoutes(route: Register, subscriptions: ReturnType<typeof createSubscriptionsService>) {
  route('createSubscription', async (r) => subscriptions.create(r.params.model_id, r.body, changeContext(r).actor));

  route('listSubscriptions', async (r) => subscriptions.list(r.params.model_id, page(r), r.query.status));

  route('getSubscription', async ({ params: p }) => subscriptions.get(p.model_id, p.subscription_id));

  route('setSubscriptionStatus', async (r) =>
    subscriptions.setStatus(r.params.model_id, r.params.subscription_id, r.body.status, changeContext(r).actor),
  );

  route('deleteSubscription', async (r) => subscriptions.disable(r.params.model_id, r.params.subscription_id, changeContext(r).actor));
}
