// Tier 1: unit tests next to the code (*.spec.ts). No infrastructure.
module.exports = {
  ...require('./jest.preset'),
  displayName: 'unit',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/k8s', '<rootDir>/scripts'],
  testMatch: ['**/*.spec.ts'],
};
