import type { Tracing } from './tracing';

/**
 * Tracing as the environment asks: on when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the
 * traces-only `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and `OTEL_SDK_DISABLED` is not `true`. Off, it costs nothing:
 * the OpenTelemetry SDK is not even loaded, nothing is patched, no interceptor is added, no span is made.
 */
export function tracingFromEnv(env: Record<string, string | undefined>, serviceName: string): Tracing | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  // Loaded only when on: the SDK with its exporters is a large module graph.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startOtlpTracing } = require('./tracing') as typeof import('./tracing');
  return startOtlpTracing(env.OTEL_SERVICE_NAME || serviceName);
}
