// Tier 3: end-to-end tests over HTTP through the gateway (*.e2e-spec.ts).
module.exports = {
  ...require('./jest.preset'),
  displayName: 'e2e',
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/libs/testing/src/infra/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/infra/global-teardown.ts',
  testTimeout: 90_000,
  maxWorkers: 1,
};
