// Shared Jest settings: TypeScript through swc (decorator metadata on), the
// workspace path aliases, and node as the environment.
const path = require('node:path');

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@worktrack/contracts$': path.join(__dirname, 'libs/contracts/src/index.ts'),
    '^@worktrack/platform$': path.join(__dirname, 'libs/platform/src/index.ts'),
    '^@worktrack/testing$': path.join(__dirname, 'libs/testing/src/index.ts'),
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.infra/'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.infra/'],
};
