// Type-aware lint with zero warnings (npm run lint), and the architecture as
// rules: Nx module boundaries keep apps from importing each other; apps may
// use contracts, platform and testing; platform may use contracts only.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const noFocusOrSkip = ['it', 'test', 'describe'].flatMap((object) =>
  ['only', 'skip', 'todo'].map((property) => ({ object, property, message: 'No focused, skipped or todo tests in main.' })),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.infra/**', '.nx/**', 'coverage/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
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
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:testing'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
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
