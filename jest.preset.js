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
    // request-filtering-agent ships only as an ES module: Node loads it with require, jest's module system needs it compiled.
    '^.+/node_modules/request-filtering-agent/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    // jose (session JWTs, D-40), openid-client with oauth4webapi and oidc-provider (single sign-on, D-41) ship only as ES modules too, and @fastify/cookie imports its ES-module `cookie` dynamically.
    '^.+/node_modules/(jose|@fastify/cookie|openid-client|oauth4webapi|oidc-provider)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
    // Likewise the ES modules openapi-typescript requires (the SDK generator's staleness test runs it).
    '^.+/node_modules/(parse-json|index-to-position|supports-color|change-case)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!request-filtering-agent/|openapi-typescript/node_modules/|parse-json/|index-to-position/|supports-color/|change-case/|jose/|@fastify/cookie/|cookie/|openid-client/|oauth4webapi/|oidc-provider/)',
  ],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@worktrack/contracts$': path.join(__dirname, 'libs/contracts/src/index.ts'),
    '^@worktrack/platform$': path.join(__dirname, 'libs/platform/src/index.ts'),
    '^@worktrack/platform/tracing$': path.join(__dirname, 'libs/platform/src/tracing/register.ts'),
    '^@worktrack/testing$': path.join(__dirname, 'libs/testing/src/index.ts'),
    '^@worktrack/sdk$': path.join(__dirname, 'libs/sdk/src/index.ts'),
    '^@worktrack/mcp$': path.join(__dirname, 'apps/mcp/src/index.ts'),
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.infra/'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.infra/'],
};
