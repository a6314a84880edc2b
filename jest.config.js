/**
 * The suite in tiers (jest projects), each runnable alone (`npm run test:<tier>`), each in a folder of its own whose
 * subfolders mirror src/ (and workflows/, activities/):
 * - unit (test/unit/, handler-kit/test/): pure rules and adapters with stand-ins; no Postgres, no Temporal, nothing
 *   started (jest.unit.config.js);
 * - db (test/db/): the service against real Postgres alone (each file its own database); no Temporal is started, and
 *   the harness's Temporal client refuses every call and fails the file that made one (test/helpers/harness.ts);
 * - temporal (test/temporal/): the service against real Postgres and a real Temporal server: workflow code on a
 *   Temporal dev server with mocked activities and the replays of recorded histories (test/temporal/workflows/),
 *   then every file that starts a worker, a job's or a schedule's workflow, or a process that connects to Temporal;
 * - e2e: whole processes and a browser: the operator console, the rendered deployment, the quick start.
 * The db tier's global setup makes one migrated template database; the temporal and e2e tiers' makes it too (once
 * in a run of several tiers) and starts one Temporal server that they share. Jest runs a project's global setup only
 * when a file of that project runs, so `--selectProjects db` starts no Temporal.
 */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] };

const unit = {
  displayName: 'unit',
  testEnvironment: 'node',
  transform,
  roots: ['<rootDir>/test/unit', '<rootDir>/handler-kit/test'],
  testMatch: ['**/*.test.ts'],
  // The kit's Postgres outage runs a whole stack: it is a temporal-tier test kept beside the kit it covers.
  testPathIgnorePatterns: ['/node_modules/', '/handler-kit/test/postgres-outage\\.test\\.ts$'],
};

/**
 * What `npm run test:server` leaves to the dev-server run: files whose answers do not depend on the Temporal server's
 * shape (its persistence, visibility, matching), so a second run on the production-shaped server would test nothing
 * new. What touches Temporal's behaviour (jobs' lifecycles, schedules, visibility, fairness, restarts, connections,
 * workers) runs on both.
 */
const ONE_SHAPE_ONLY = [
  // Not Temporal at all: the rendered deployment, the handler kits, the Python handlers.
  '/test/deploy/',
  '/handler-kit/',
  'python-',
  // The console's journeys: the API's answers rendered in a browser.
  '/test/console/',
  // Rules the API and Postgres decide alone: the registry, tenants, authorization, validation, HTTP limits, secrets.
  '/registry-[a-z-]+\\.test\\.ts$',
  '/(models|compatibility|user-schemas|shared-registry|tenants|migrations|secrets-at-rest)\\.test\\.ts$',
  '/(auth-matrix|auth-oidc|client-mistakes|input-hardening|browser-and-limits|slow-clients|rate-limits)\\.test\\.ts$',
  '/(fuzz|openapi-examples)\\.test\\.ts$',
  // Faults of the other dependencies behind Toxiproxy: Postgres, the identity provider, the AWS stand-in.
  '/(postgres-outage|idp-outage|aws-outage|aws-config)\\.test\\.ts$',
  // `npm start`'s processes: their signals, embedded Postgres and settings, which no Temporal shape changes.
  '/(dev-runner|npm-start|npm-start-signals)\\.test\\.ts$',
];

/** A tier on the shared servers: each file that uses Postgres gets a database of its own (test/helpers/suite-database.ts). */
const onServers = (displayName, testMatch, globalSetup) => ({
  displayName,
  testEnvironment: 'node',
  transform,
  roots: ['<rootDir>/test', '<rootDir>/handler-kit/test'],
  testMatch,
  setupFilesAfterEnv: ['<rootDir>/test/helpers/suite-database.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEST_TEMPORAL === 'server' ? ONE_SHAPE_ONLY : [])],
  globalSetup,
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
});

const postgresOnly = '<rootDir>/test/helpers/global-setup-postgres.ts';
const withTemporal = '<rootDir>/test/helpers/global-setup.ts';

module.exports = {
  projects: [
    unit,
    onServers('db', ['<rootDir>/test/db/**/*.test.ts'], postgresOnly),
    onServers('temporal', ['<rootDir>/test/temporal/**/*.test.ts', '<rootDir>/handler-kit/test/postgres-outage.test.ts'], withTemporal),
    onServers(
      'e2e',
      ['<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/test/console/**/*.test.ts', '<rootDir>/test/deploy/**/*.test.ts'],
      withTemporal,
    ),
  ],
  // A bound for a hung test, not a speed target: on a busy 2-core machine (a CPU hog on one core) the suites' longer
  // walks (every operation, a worker killed and respawned) took over a minute.
  testTimeout: 120000,
  maxWorkers: 2,
};
