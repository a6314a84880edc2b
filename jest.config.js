/** Integration tests share one Temporal dev server, started in globalSetup; each file has its own Postgres database. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/handler-kit/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // Each file that uses Postgres on a database of its own, copied from the template global setup migrated.
  setupFilesAfterEnv: ['<rootDir>/test/helpers/suite-database.ts'],
  // A bound for a hung test, not a speed target: on a busy 2-core machine (a CPU hog on one core) the suites' longer
  // walks (every operation, a worker killed and respawned) took over a minute.
  testTimeout: 120000,
  maxWorkers: 2,
};
