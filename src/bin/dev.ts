import { tracingFromEnv } from '../observability/tracing-env';

// As in main.ts: tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set) starts before the modules it instruments load.
const tracing = tracingFromEnv(process.env, 'model-orchestration-dev');
/* eslint-disable @typescript-eslint/no-require-imports */
const { startDevRunner } = require('../dev/runner') as typeof import('../dev/runner');
const { DEV_PLATFORM_CLIENT } = require('../dev/dev-auth') as typeof import('../dev/dev-auth');
const { projectRoot, dataDir } = require('../paths') as typeof import('../paths');
const { loadConfig } = require('../config') as typeof import('../config');
/* eslint-enable @typescript-eslint/no-require-imports */

/** The signals a terminal, a supervisor, an IDE or `timeout` send to stop `npm start`. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How often the runner looks whether npm, its parent, is still there. */
const PARENT_CHECK_MS = 500;

/**
 * Stops everything npm start started, in order (src/dev/runner.ts `stop`), on the first of INT, TERM or HUP, or
 * when npm dies: npm forwards INT and TERM to this process (scripts/start.sh execs into it) but dies of HUP or
 * SIGKILL without a word, and its child would run on. A second signal forces: the process exits at once, and its
 * exit kills Temporal while Postgres stops with its parent.
 */
function stopOnSignals(stop: () => Promise<void>) {
  let stopping: Promise<void> | undefined;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) request(`npm (pid ${parent}) exited`);
  }, PARENT_CHECK_MS);
  function request(why: string) {
    if (stopping) {
      console.log(`\n  ${why} again: forcing the stop.`);
      process.exit(1);
    }
    clearInterval(watch);
    console.log(`\n  ${why}: stopping everything npm start started (a second signal forces it)...`);
    stopping = stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('npm start did not stop cleanly:', err instanceof Error ? err.message : err);
        process.exit(1);
      },
    );
  }
  for (const signal of STOP_SIGNALS) process.on(signal, () => request(signal));
}

/** `npm start`: see src/dev/runner.ts. Prints where everything is, and stops all of it on Ctrl-C or a signal. */
async function run() {
  const root = projectRoot();
  // Listening from the start: a signal while Postgres and Temporal start stops them once they are up.
  let runner: Awaited<ReturnType<typeof startDevRunner>> | undefined;
  const starting = startDevRunner({ env: process.env, root, dataDir: dataDir(), tracing });
  stopOnSignals(async () => {
    runner ??= await starting;
    await runner.stop();
    await tracing?.shutdown();
  });
  runner = await starting;

  const api = runner.apiUrl;
  const prefix = loadConfig(process.env).auth.scopePrefix;
  console.log(`
  Model Orchestration Service is running
    API          ${api}/v2/health
    Console      ${api}/console/
    API docs     ${api}/docs   (OpenAPI: ${api}/v2/openapi.json)
    Temporal UI  ${runner.temporalUiUrl ?? '(not configured: set TEMPORAL_UI_URL)'}
    Temporal     ${runner.temporalAddress}
    Postgres     ${runner.embeddedPostgresUrl ? `${runner.embeddedPostgresUrl}   (embedded; another port at each start)` : '(DATABASE_URL)'}
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
  Ctrl-C stops everything started here, as SIGINT, SIGTERM or SIGHUP to npm do; a second one forces it.
`);
}

run().catch((err) => {
  console.error('npm start failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
