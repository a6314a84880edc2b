import { startDevRunner } from './dev/runner';
import { DEV_PLATFORM_CLIENT } from './dev/dev-auth';
import { projectRoot, dataDir } from './paths';
import { loadConfig } from './config';

/** `npm start`: see src/dev/runner.ts. Prints where everything is, and stops all of it on Ctrl-C. */
async function run() {
  const root = projectRoot();
  const runner = await startDevRunner({ env: process.env, root, dataDir: dataDir() });
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    console.log('\n  Stopping everything npm start started...');
    runner.stop().finally(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const api = runner.apiUrl;
  const prefix = loadConfig(process.env).auth.scopePrefix;
  console.log(`
  Model Orchestration Service is running
    API          ${api}/v2/health
    API docs     ${api}/docs   (OpenAPI: ${api}/v2/openapi.json)
    Temporal UI  ${runner.temporalUiUrl ?? '(not configured: set TEMPORAL_UI_URL)'}
    Temporal     ${runner.temporalAddress}
    Started here ${runner.started.join(', ') || 'nothing else: using DATABASE_URL, TEMPORAL_ADDRESS and AUTH_JWKS_URL'}
${runner.adminToken ? `
  Dev admin token (platform client "${DEV_PLATFORM_CLIENT}", scope ${prefix}admin, 12h):
    export TOKEN=${runner.adminToken}
    curl -H "Authorization: Bearer $TOKEN" ${api}/v2/models
  Mint others:  npm run --silent token -- --client-id acme --scope "client_read service_init"
                npm run --silent token -- --user alice --groups "client:acme" --scope "client_read service_init"
` : ''}
  Ctrl-C stops everything started here.
`);
}

run().catch((err) => {
  console.error('npm start failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
