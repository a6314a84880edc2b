import pino, { Logger } from 'pino';
import { trace } from '@opentelemetry/api';

/**
 * Lines logged inside a traced operation (a request, an activity) carry its trace and span ids, so a log line
 * leads to its trace. Without tracing no span is active and the mixin adds nothing.
 */
function traceIds(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export function createLogger(level: string, name = 'model-orchestration'): Logger {
  return pino({ name, level, mixin: traceIds, redact: { paths: ['req.headers.authorization', '*.token', '*.secret'], remove: true } });
}
