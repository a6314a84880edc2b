import { tracingFromEnv } from '../observability/tracing-env';

// As in main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) starts before the modules it instruments load.
const tracing = tracingFromEnv(process.env, 'model-orchestration-dev');
/* eslint-disable @typescript-eslint/no-require-imports */
const { startDevRunner } = require('../dev/runner') as typeof import('../dev/runner');
const { DEV_PLATFORM_CLIENT } = require('../dev/dev-auth') as typeof import('../dev/dev-auth');
const { projectRoot, dataDir } = require('../paths') as typeof import('../paths');
const { loadConfig } = require('../config') as typeof import('../config');
/* eslint-enable @typescript-eslint/no-require-imports */

/** `npm start`: see src/dev/runner.ts. Prints where everything is, and stops all of it on Ctrl-C. */
async function run() {
  const root = projectRoot();
  const runner = await startDevRunner({ env: process.env, root, dataDir: dataDir(), tracing });
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    console.log('\n  Stopping everything npm start started...');
    void runner
      .stop()
      .then(() => tracing?.shutdown())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const api = runner.apiUrl;
  const prefix = loadConfig(process.env).auth.scopePrefix;
  console.log(`
  Model Orchestration Service is running
    API          ${api}/v2/health
    Console      ${api}/console/
    API docs     ${api}/docs   (OpenAPI: ${api}/v2/openapi.json)
    Temporal UI  ${runner.temporalUiUrl ?? '(not configured: set TEMPORAL_UI_URL)'}
    Temporal     ${runner.temporalAddress}
    Model server ${runner.modelServerUrl}   (stand-in for http handlers: POST /sync, /async)
    Metrics      ${api}/metrics${runner.workerMetricsUrl ? `, worker and Temporal SDK: ${runner.workerMetricsUrl}` : ''}
    Started here ${runner.started.join(', ') || 'nothing else: using DATABASE_URL, TEMPORAL_ADDRESS, AUTH_JWKS_URL and SECRET_KEYS'}
${
  runner.adminToken
    ? `
  Dev admin token (platform client "${DEV_PLATFORM_CLIENT}", scope ${prefix}admin, 12h):
    export TOKEN=${runner.adminToken}
    curl -H "Authorization: Bearer $TOKEN" ${api}/v2/models
  Mint others:  npm run --silent token -- --client-id acme --scope "client_read service_init"
                npm run --silent token -- --user alice --groups "client:acme" --scope "client_read service_init"
`
    : ''
}
  Ctrl-C stops everything started here.
`);
}

run().catch((err) => {
  console.error('npm start failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
