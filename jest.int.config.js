// Tier 2: integration tests per service and lib (*.int-spec.ts) against real
// Kafka and Postgres. One broker and one database per run (see libs/testing).
module.exports = {
  ...require('./jest.preset'),
  displayName: 'integration',
  roots: ['<rootDir>/apps', '<rootDir>/libs'],
  testMatch: ['**/*.int-spec.ts'],
  globalSetup: '<rootDir>/libs/testing/src/infra/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/infra/global-teardown.ts',
  // A spec file fails when any outbox row its services wrote does not match its contract.
  setupFilesAfterEnv: ['<rootDir>/libs/testing/src/infra/outbox-rows.setup.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
