import { trace, SpanKind } from '@opentelemetry/api';
import type { JobGateway } from '../domain/ports';

const tracer = () => trace.getTracer('model-orchestration');

/**
 * A gateway whose starts begin a trace of their own, linked to the span that caused them. Cascade jobs use it:
 * each job keeps one bounded trace (a chain of cascades would otherwise grow one trace per chain), and the link
 * leads from the cascade job back to the completion that fired it. Without tracing it is the gateway itself.
 */
export function launchInLinkedTrace(gateway: JobGateway): JobGateway {
  return {
    ...gateway,
    launch(job) {
      const cause = trace.getActiveSpan();
      if (!cause) return gateway.launch(job);
      return tracer().startActiveSpan(
        `cascade job ${job.model_id}@${job.model_version}`,
        {
          root: true,
          kind: SpanKind.PRODUCER,
          links: [{ context: cause.spanContext(), attributes: { 'mos.link': 'fired_by' } }],
          attributes: { 'mos.job_id': job.job_id, 'mos.source_job_id': job.source_job_id ?? '', 'mos.trigger': job.trigger },
        },
        async (span) => {
          try {
            return await gateway.launch(job);
          } finally {
            span.end();
          }
        },
      );
    },
  };
}
