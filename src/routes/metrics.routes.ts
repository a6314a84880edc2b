import type { ServiceMetrics } from '../observability/metrics';
import type { Register } from './types';

/** `/metrics`: this process's series in the Prometheus text format. */
export function registerMetricsRoutes(route: Register, metrics: ServiceMetrics) {
  route('getMetrics', async ({ ctx }) => {
    ctx.type = metrics.contentType;
    ctx.body = await metrics.scrape();
  });
}
