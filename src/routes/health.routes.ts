import type { ServingState } from '../http/serving-state';
import type { HealthService } from '../domain/health';
import type { Register } from './types';

export function registerHealthRoutes(route: Register, health: HealthService, serving: ServingState) {
  // The spec's health route: the dependencies, whatever the process's own state.
  route('getHealth', async ({ ctx }) => {
    const { ok, ...checks } = await health.dependencies();
    ctx.status = ok ? 200 : 503;
    return { status: ok ? ('ok' as const) : ('degraded' as const), ...checks };
  });

  // Liveness answers while draining too: restarting a process that is finishing its requests loses them.
  route('getLiveness', async () => ({ status: 'ok' as const }));

  route('getReadiness', async ({ ctx }) => {
    if (serving.draining) {
      ctx.status = 503;
      return { status: 'not_ready' as const, serving: 'draining' as const };
    }
    const [{ ok, ...checks }, migrations] = await Promise.all([health.dependencies(), health.migrations()]);
    const ready = ok && migrations === 'ok';
    ctx.status = ready ? 200 : 503;
    const fairness = health.temporalFairness();
    return {
      status: ready ? ('ready' as const) : ('not_ready' as const),
      serving: 'ok' as const,
      ...checks,
      migrations,
      ...(fairness ? { temporal_fairness: fairness } : {}),
    };
  });
}
