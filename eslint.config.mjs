// The checks that keep the code's shape (`npm run lint`, which .ci/run runs before the tests): no import cycles, also
// through type-only imports (which import-x/no-cycle skips: scripts/lint-type-cycles.mjs), the layers of lib/, React's
// rules of hooks, and the recommended JavaScript and TypeScript rules the code already keeps. Types are tsc's; formatting is
// prettier's (.prettierrc), so no style rules here.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { noTypeImportCycle } from './scripts/lint-type-cycles.mjs';

export default tseslint.config(
  { ignores: ['tests/fixtures/', 'node_modules/', '.next/', '.callscope/', '.ci/', 'native/build/', 'dist/', 'reports/', 'next-env.d.ts'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    // import-x reads only the modules its settings name: TypeScript's too, or it finds no cycle through them.
    settings: { ...importX.flatConfigs.typescript.settings, 'import-x/resolver-next': [createTypeScriptImportResolver()] },
    rules: {
      'import-x/no-cycle': 'error',
      // The format code matches control characters on purpose (JSON escapes, SSE and header checks).
      'no-control-regex': 'off',
      // A leading underscore names what is dropped on purpose (a destructured field, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true }],
    },
  },
  {
    // The layers (architecture.md, Layout): the format and the rollout files are pure libraries that the index, the
    // API, the server and the pages build on, never the other way round; the native addon is the index's (it passes
    // the fast scans in: lib/index/scan/).
    files: ['lib/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: './lib/capture',
              from: ['./lib/index', './lib/rollouts', './lib/view', './lib/api', './lib/server', './lib/cli', './components', './app'],
              message: 'lib/capture is the format, pure: it imports no layer above it and nothing native.',
            },
            {
              target: './lib/rollouts',
              from: ['./lib/index', './lib/api', './lib/server', './lib/cli', './components', './app'],
              message: 'lib/rollouts is pure: the index passes it what it needs (e.g. the fast scanner).',
            },
            {
              target: './lib/util',
              from: ['./lib/capture', './lib/rollouts', './lib/index', './lib/view', './lib/api', './lib/server', './lib/cli', './lib/demo', './components', './app'],
              message: 'lib/util holds small shared structures and loaders that depend on no layer.',
            },
            {
              target: './lib/view',
              from: ['./lib/index', './lib/server', './lib/cli', './components', './app'],
              message: 'lib/view preparers take their types from lib/api, never from the index.',
            },
            {
              target: ['./lib/api/schemas.ts', './lib/api/call-schemas.ts', './lib/api/compare-schemas.ts', './lib/api/diff-schemas.ts', './lib/api/task-schemas.ts', './lib/api/trajectory-schemas.ts'],
              from: ['./lib/index', './lib/server', './lib/cli', './components', './app'],
              message: "The API's schemas are the response types: the index imports them, never the other way round.",
            },
            {
              target: './components',
              from: ['./lib/index', './lib/server', './lib/cli', './app'],
              message: 'Components take their types from lib/api; the pages (app/) read the index.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { callscope: { rules: { 'no-type-import-cycle': noTypeImportCycle } } },
    rules: { 'callscope/no-type-import-cycle': 'error' },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
  {
    files: ['app/**/*.{ts,tsx}', 'components/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // The benchmarks read the server's answers untyped; issue 19 splits them into a shared library first.
    files: ['scripts/bench-*.ts', 'scripts/bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
