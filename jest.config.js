/**
 * The suite in tiers (jest projects), each runnable alone (`npm run test:<tier>`):
 * - unit: pure rules and adapters with stand-ins; no Postgres, no Temporal, nothing started (jest.unit.config.js);
 * - workflows: workflow code on a Temporal dev server with mocked activities, and the replays of recorded histories;
 * - integration: the service against real Postgres and a real Temporal server (each file its own database);
 * - e2e: whole processes and a browser: the operator console, the rendered deployment, the quick start.
 * Every tier but unit shares one Temporal server and one migrated template database, started in globalSetup.
 */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] };

const unit = {
  displayName: 'unit',
  testEnvironment: 'node',
  transform,
  roots: ['<rootDir>/test/unit', '<rootDir>/handler-kit/test'],
  testMatch: ['**/*.test.ts'],
  // The kit's Postgres outage runs a whole stack: it is an integration test kept beside the kit it covers.
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
const onServers = (displayName, testMatch) => ({
  displayName,
  testEnvironment: 'node',
  transform,
  roots: ['<rootDir>/test', '<rootDir>/handler-kit/test'],
  testMatch,
  setupFilesAfterEnv: ['<rootDir>/test/helpers/suite-database.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEST_TEMPORAL === 'server' ? ONE_SHAPE_ONLY : [])],
});

module.exports = {
  projects: [
    unit,
    onServers('workflows', ['<rootDir>/test/workflows/**/*.test.ts']),
    onServers('integration', ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/handler-kit/test/postgres-outage.test.ts']),
    onServers('e2e', ['<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/test/console/**/*.test.ts', '<rootDir>/test/deploy/**/*.test.ts']),
  ],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // A bound for a hung test, not a speed target: on a busy 2-core machine (a CPU hog on one core) the suites' longer
  // walks (every operation, a worker killed and respawned) took over a minute.
  testTimeout: 120000,
  maxWorkers: 2,
};
