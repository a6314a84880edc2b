import type { ServingState } from '../http/serving-state';
import type { HealthService } from '../domain/health';
import type { Register } from './types';

export function registerHealthRoutes(route: Register, health: HealthService, serving: ServingState) {
  // The spec's health route: the dependencies, whatever the process's own state.
  route('getHealth', async ({ ctx }) => {
    const { ok, ...checks } = await health.dependencies();
    ctx.status = ok ? 200 : 503;
    return { status: ok ? 'ok' : 'degraded', ...checks };
  });

  // Liveness answers while draining too: restarting a process that is finishing its requests loses them.
  route('getLiveness', async () => ({ status: 'ok' }));

  route('getReadiness', async ({ ctx }) => {
    if (serving.draining) {
      ctx.status = 503;
      return { status: 'not_ready', serving: 'draining' };
    }
    const [{ ok, ...checks }, migrations] = await Promise.all([health.dependencies(), health.migrations()]);
    const ready = ok && migrations === 'ok';
    ctx.status = ready ? 200 : 503;
    return { status: ready ? 'ready' : 'not_ready', serving: 'ok', ...checks, migrations };
  });
}
