import type { Register } from './types';
import { changeContext } from '../http/routing';
import type { RolloutsService } from '../domain/assignments';

/** Progressive delivery of a domain's canary and shadow assignments (docs/progressive-delivery.md). */
export function registerRolloutRoutes(route: Register, rollouts: RolloutsService) {
  route('getCanaryServices', async ({ params: p }) => rollouts.canaryServices(p.client_id, p.domain_id, p.assignment_key));

  route('getRolloutReport', async ({ params: p }) => rollouts.report(p.client_id, p.domain_id, p.assignment_key));

  route('promoteAssignment', async (r) =>
    rollouts.promote(r.params.client_id, r.params.domain_id, r.params.assignment_key, changeContext(r)),
  );

  route('rollbackAssignment', async (r) =>
    rollouts.rollback(r.params.client_id, r.params.domain_id, r.params.assignment_key, r.body.reason, changeContext(r)),
  );
}
