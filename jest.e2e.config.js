// Tier 3: end-to-end tests over HTTP through the gateway (*.e2e-spec.ts).
// It includes the short chaos run (e2e/chaos.e2e-spec.ts, about 4 minutes; `npm run test:chaos` runs it alone).
module.exports = {
  ...require('./jest.preset'),
  displayName: 'e2e',
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/libs/testing/src/infra/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/infra/global-teardown.ts',
  testTimeout: 90_000,
  maxWorkers: 1,
};
