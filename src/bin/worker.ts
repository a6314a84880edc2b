import { tracingFromEnv } from '../observability/tracing-env';

// As in main.ts: tracing starts before the worker's modules load `pg` and `http`, so they are instrumented.
const tracing = tracingFromEnv(process.env, 'model-orchestration-worker');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runWorker } = require('../worker-process') as typeof import('../worker-process');

runWorker(tracing)
  // The SDK's native runtime may hold the event loop open after a clean stop.
  .then(() => process.exit(0))
  .catch((err) => {
    console.error('worker failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  });
