import { Runtime, DefaultLogger } from '@temporalio/worker';

type SdkLogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

// The Temporal SDK's Runtime is a process-wide singleton of the SDK's own (it owns the native threads, the log
// forwarding and the metrics exporter), installed once and before the first NativeConnection; this flag is the
// only module state here, and it mirrors that one.
let installed = false;

/**
 * Installs the SDK Runtime: its log level and, with `prometheusAddress`, its Prometheus exporter (task slots, poll
 * and task latencies, sticky cache, ...) bound there. A second call is a no-op: the first one configured it.
 */
export function installTemporalRuntime(options: { logLevel?: SdkLogLevel; prometheusAddress?: string } = {}): void {
  if (installed) return;
  installed = true;
  try {
    Runtime.install({
      logger: new DefaultLogger(options.logLevel ?? 'WARN'),
      ...(options.prometheusAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: options.prometheusAddress } } } } : {}),
    });
  } catch {
    // already installed by the host process (a test runner, the dev runner)
  }
}
