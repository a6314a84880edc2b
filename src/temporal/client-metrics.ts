import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ServiceMetrics } from '../observability/metrics';

/**
 * Times every workflow call this client makes (start, update, query, signal, describe, ...). An update is timed
 * until its answer, which for `completeJob` includes recording the outcome and firing the cascades.
 */
export function clientMetricsInterceptor(metrics: ServiceMetrics): WorkflowClientInterceptor {
  const timed =
    <I, O>(operation: string) =>
    async (input: I, next: (input: I) => Promise<O>): Promise<O> => {
      const stop = metrics.temporalCalls.startTimer({ operation });
      try {
        const output = await next(input);
        stop({ outcome: 'ok' });
        return output;
      } catch (err) {
        stop({ outcome: 'error' });
        throw err;
      }
    };
  return {
    start: timed('start'),
    startWithDetails: timed('start'),
    startUpdate: timed('update'),
    startUpdateWithStart: timed('update_with_start'),
    signal: timed('signal'),
    signalWithStart: timed('signal_with_start'),
    query: timed('query'),
    terminate: timed('terminate'),
    cancel: timed('cancel'),
    describe: timed('describe'),
  };
}
