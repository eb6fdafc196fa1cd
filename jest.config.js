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
  // Files run one at a time in a worker that is replaced once it holds more than this after a file: native ESM under
  // Jest's VM modules keeps every file's module graph, and one process running the whole suite grew past 4 GB, its
  // later files slowed by garbage collection (a 40-line file took 47 s). Two workers do not help: the browser, the
  // service and Jest already keep both cores busy.
  maxWorkers: 1,
  workerIdleMemoryLimit: '1200MB',
  // A hook that times out (a start still under way) leaves a server its test never got to close: end the run anyway.
  forceExit: true,
  globalSetup: '<rootDir>/test/helpers/global-setup.mjs',
};
