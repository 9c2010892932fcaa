// `npm run lint`: typescript-eslint's type-checked rules on every TypeScript file (tsconfig.json's
// program), the plain rules on the JavaScript around it (build script, bin, the webmail's page scripts).
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'tmp/', 'data/'] },
  eslint.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Named here although the preset has them: the two this project must never lose.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // The ports are asynchronous; the SQLite adapters and test doubles meet them with `async` methods
      // that need no await. `async` stays on purpose: it turns a synchronous throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // `_` names what must be bound but is not used (e.g. `for await (const _ of subscription)`).
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    // Served to the browser as they are: classic scripts, no modules, no build step.
    files: ['src/webmail/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { globals: globals.mocha },
  },
  {
    // Tests read HTTP answers as parsed JSON (`body: any` in test/support) and check them with
    // assert.deepEqual and friends: the assertions are the type check there, so the rules against
    // using `any` are for the code under test only.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
