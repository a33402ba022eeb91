// Tier 3: end-to-end tests over HTTP through the gateway (*.e2e-spec.ts).
// The short chaos run (e2e/chaos.e2e-spec.ts) is not part of this tier yet: `npm run test:chaos`
// (jest.chaos.config.js) runs it; docs/reliability.md says why.
module.exports = {
  ...require('./jest.preset'),
  displayName: 'e2e',
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/e2e/chaos\\.e2e-spec\\.ts$'],
  globalSetup: '<rootDir>/libs/testing/src/infra/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/infra/global-teardown.ts',
  testTimeout: 90_000,
  maxWorkers: 1,
};
