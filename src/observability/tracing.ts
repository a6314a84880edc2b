import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, detectResourcesSync, envDetectorSync } from '@opentelemetry/resources';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import {
  OpenTelemetryWorkflowClientInterceptor,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';

/** What the API and the worker add to their Temporal client and worker when tracing is on. */
export interface Tracing {
  /** Start a span per client call and carry its context to the workflow in the call's headers. */
  clientInterceptors: WorkflowClientInterceptor[];
  /** Activity spans, the workflow interceptor module, and the sink that exports spans made inside workflows. */
  workerOptions: Required<Pick<WorkerOptions, 'sinks'>> & { interceptors: NonNullable<WorkerOptions['interceptors']> };
  /** The HTTP, Koa and pg instrumentations, which patch those modules as Node loads them. */
  instrumentations: Instrumentation[];
  /** Flushes the spans still buffered and unpatches the instrumented modules. */
  shutdown(): Promise<void>;
}

// Probes and scrapes every few seconds would bury the traces worth reading.
const UNTRACED_PATHS = /^\/(metrics|v2\/health\/(live|ready))(\?|$)/;

/**
 * Starts OpenTelemetry for this process: the HTTP, Koa and pg instrumentations, W3C trace context, and the given
 * span processor. OpenTelemetry's API is process-wide by design (one tracer provider, one context manager, and
 * instrumentations that patch modules as they load), so call this once, before `http`, `koa` and `pg` load.
 */
export function startTracing(options: { serviceName: string; spanProcessor: SpanProcessor }): Tracing {
  const resource = Resource.default()
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }))
    .merge(new Resource({ 'service.name': options.serviceName }));
  const instrumentations: Instrumentation[] = [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? '') }),
    // Router layers only: a span per middleware (auth, body parsing, ...) adds nothing the server span lacks.
    new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
    // Statements of a traced operation only; the reconciler's polling would otherwise start a trace every 15 s.
    new PgInstrumentation({ requireParentSpan: true }),
  ];
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [options.spanProcessor],
    instrumentations,
    // Logs stay with pino (which carries the trace id); no OTLP log pipeline from the environment.
    logRecordProcessors: [],
  });
  sdk.start();
  return {
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor()],
    workerOptions: {
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
        // Workflow code runs in a sandbox; its spans leave through the `exporter` sink below.
        workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
      },
      sinks: { exporter: makeWorkflowExporter(options.spanProcessor, resource) },
    },
    instrumentations,
    async shutdown() {
      // A collector that is down at exit loses the last batch; it must not turn a clean stop into a failed one.
      await sdk.shutdown().catch(() => undefined);
      for (const instrumentation of instrumentations) instrumentation.disable();
    },
  };
}

/** Tracing that exports over OTLP to the endpoint in the OTEL_EXPORTER_OTLP_* variables (see tracing-env.ts). */
export function startOtlpTracing(serviceName: string): Tracing {
  // The exporter reads the endpoint, headers and timeout from the same variables.
  return startTracing({ serviceName, spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()) });
}
