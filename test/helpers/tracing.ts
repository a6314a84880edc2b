import type { InstrumentationBase } from '@opentelemetry/instrumentation';
import type { Tracing } from '../../src/observability/tracing';

/**
 * Jest loads modules through its own registry, which the instrumentations' require hook never sees; in the API
 * and worker processes Node's `require` applies these patches as http, koa and pg load. Here they are applied by
 * hand, to the same module objects the harness's server, router and pool use.
 */
export function patchModulesForJest(tracing: Tracing): void {
  for (const instrumentation of tracing.instrumentations) {
    for (const definition of (instrumentation as InstrumentationBase).getModuleDefinitions()) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const exports = require(definition.name);
      definition.patch?.(exports);
      definition.moduleExports = exports;
    }
  }
}
