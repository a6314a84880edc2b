/** Integration tests share one Postgres database and one Temporal dev server, started in globalSetup. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/handler-kit/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // A bound for a hung test, not a speed target: on a busy 2-core machine (a CPU hog on one core) the suites' longer
  // walks (every operation, a worker killed and respawned) took over a minute.
  testTimeout: 120000,
  maxWorkers: 2,
};
