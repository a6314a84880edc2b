import { tracingFromEnv } from '../observability/tracing-env';

// The HTTP, Koa and pg instrumentations patch those modules as they load, so tracing starts before anything
// requires them: the API's modules are loaded only after this line, hence `require` rather than `import`.
const tracing = tracingFromEnv(process.env, 'model-orchestration-api');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runApi } = require('../api-process') as typeof import('../api-process');

runApi(tracing).catch((err) => {
  console.error('API failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
