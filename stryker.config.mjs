// `npm run test:mutation`: mutation testing (StrykerJS) of the command side, the read-model fold and the
// HTTP input parsing. Not run in CI: it takes a while (README "Mutation testing").
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'mocha',
  // The specs and the code they import are TypeScript ESM, run through tsx as everywhere else.
  testRunnerNodeArgs: ['--import', 'tsx'],
  coverageAnalysis: 'perTest',
  mutate: [
    'src/commands/**/*.ts',
    'src/projections/fold/filter-view.ts',
    'src/http/rails-params.ts',
    'src/http/json-params.ts',
    'src/http/param-limits.ts',
    'src/http/request-params.ts',
    'src/http/input-values.ts',
    'src/http/input-schemas.ts',
    'src/http/filter-input.ts',
  ],
  mochaOptions: {
    // The specs that exercise those files; the rest of the suite would only make each run slower.
    spec: [
      'test/commands/**/*.spec.ts',
      'test/projections/filter-view.spec.ts',
      'test/http/rails-params.spec.ts',
      'test/http/json-params.spec.ts',
      'test/http/input-values.spec.ts',
      'test/http/request-bodies.spec.ts',
      'test/http/hostile-params.spec.ts',
      'test/http/v2-filters.spec.ts',
      'test/http/v2-keywords.spec.ts',
      'test/http/v2-statuses.spec.ts',
      'test/http/v1-filters.spec.ts',
    ],
  },
  ignorePatterns: ['data', 'tmp', 'bench', 'reports', '.ci'],
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 80, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
