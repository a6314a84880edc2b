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

/** Tokens and secrets are removed from every line, wherever a caller put them one level down. */
export function createLogger(level: string, name = 'model-orchestration', destination?: pino.DestinationStream): Logger {
  const redact = {
    paths: ['req.headers.authorization', '*.token', '*.secret', '*.secret_sealed', '*.previous_secret_sealed'],
    remove: true,
  };
  return pino({ name, level, mixin: traceIds, redact }, destination);
}
