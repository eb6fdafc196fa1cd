/** Jest runs TypeScript as native ESM through SWC; type errors are caught by `tsc --noEmit` in `npm test`. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // node-config's CommonJS entry require()s its ESM build, which Jest's module system cannot: load the ESM build.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^config$': '<rootDir>/node_modules/config/lib/config.mjs' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Real browsers, processes and databases on a 2-core machine: a busy run must not turn slowness into failures.
  testTimeout: 60000,
  // A hook that times out (a start still under way) leaves a server its test never got to close: end the run anyway.
  forceExit: true,
  globalSetup: '<rootDir>/test/helpers/global-setup.mjs',
};
