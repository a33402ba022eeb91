// Type-aware lint with zero warnings (npm run lint), and the architecture as
// rules (CONTRIBUTING.md): Nx module boundaries keep apps from importing each
// other (one scope per app, each depending on itself and the shared libs
// only); apps may use contracts, platform, testing and the SDK; platform may
// use contracts only; the SDK nothing; a consumer or controller never imports
// a repository; only a feature's publisher writes the outbox.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/** SQL that names an outbox table: `INTO/FROM/UPDATE/JOIN/TABLE [schema.]outbox`. */
const OUTBOX_SQL = String.raw`/(into|from|update|join|table)\s+("?[a-z_]+"?\s*\.\s*)?"?outbox\b/i`;

const APPS = ['gateway', 'identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors', 'webhooks', 'reporting', 'web'];

const noFocusOrSkip = ['it', 'test', 'describe'].flatMap((object) =>
  ['only', 'skip', 'todo'].map((property) => ({ object, property, message: 'No focused, skipped or todo tests in main.' })),
);

export default tseslint.config(
  // The SDK's generated types (npm run generate:sdk) are checked for staleness, not linted; openapi-client/ is
  // type-checked against types generated at test time (apps/gateway/test/openapi-client.int-spec.ts).
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.infra/**',
      '.nx/**',
      'coverage/**',
      'libs/sdk/src/generated/**',
      'apps/gateway/test/openapi-client/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:testing', 'type:sdk', 'type:mcp'],
            },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:testing', 'type:sdk'] },
            // The SDK is published on its own: it stands alone (its error codes are generated from contracts, not imported).
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: [] },
            // apps/mcp: the MCP server (a client of the public API through the SDK), run over stdio and mounted by the gateway at /mcp.
            { sourceTag: 'type:mcp', onlyDependOnLibsWithTags: ['type:sdk'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
            // One rule per app: its own scope and the shared libs, never another app.
            // The gateway also mounts the MCP server at /mcp (scope:mcp).
            ...APPS.map((app) => ({
              sourceTag: `scope:${app}`,
              onlyDependOnLibsWithTags: [`scope:${app}`, 'scope:shared', ...(app === 'gateway' ? ['scope:mcp'] : [])],
            })),
            { sourceTag: 'scope:mcp', onlyDependOnLibsWithTags: ['scope:mcp', 'scope:shared'] },
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared', 'scope:mcp'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Nest injects by the runtime class: an injected class must stay a value import.
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-restricted-properties': ['error', ...noFocusOrSkip],
      'no-restricted-globals': [
        'error',
        { name: 'fit', message: 'No focused tests.' },
        { name: 'fdescribe', message: 'No focused tests.' },
        { name: 'xit', message: 'No skipped tests.' },
        { name: 'xdescribe', message: 'No skipped tests.' },
      ],
    },
  },
  {
    // Thin layers: a Kafka consumer or an HTTP controller hands its message to a service; only services use repositories.
    files: ['apps/**/*.consumer.ts', 'apps/**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/*.repository', './*.repository'],
              message: 'A consumer or controller calls its service; only services use repositories.',
            },
          ],
        },
      ],
    },
  },
  {
    // Events out: a feature's <feature>.publisher.ts is the one place that writes the outbox.
    files: ['apps/**/*.ts'],
    ignores: ['apps/**/*.publisher.ts', 'apps/**/test/**', 'apps/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@worktrack/platform',
              importNames: [
                'enqueue',
                'enqueueMany',
                'outboxInsertSql',
                'jsonObjectSql',
                'jsonArraySql',
                'checkedOutboxPayload',
                'outboxTable',
              ],
              message: "Write the outbox through the feature's <feature>.publisher.ts.",
            },
          ],
        },
      ],
    },
  },
  {
    // One spelling per message: no SQL names an outbox table by hand. Outbox rows are written by
    // enqueue or by the statement outboxInsertSql builds from the contract (libs/platform/src/outbox).
    files: ['**/*.ts'],
    // bench/sessions-floor.ts is the raw ceiling: the design's hops made with plain packages, no product code.
    ignores: [
      'libs/platform/src/outbox/**',
      '**/test/**',
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      'bench/sessions-floor.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Literal', 'TemplateElement'].map((node) => ({
          selector: `${node}[${node === 'Literal' ? 'value' : 'value.raw'}=${OUTBOX_SQL}]`,
          message: 'SQL names an outbox table: build the row from its contract (enqueue, or outboxInsertSql in a publisher).',
        })),
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
);
