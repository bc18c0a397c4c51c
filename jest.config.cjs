// `npm test` at the root runs every workspace's tests and the end-to-end suite.
module.exports = {
  // A temp directory of the run's own, checked at the end for file secrets a test left behind.
  globalSetup: '<rootDir>/scripts/jest-global-setup.cjs',
  globalTeardown: '<rootDir>/scripts/jest-global-teardown.cjs',
  // Jest's 5 s default fails sound tests on a loaded 2-core CI machine (a project's own setting is
  // ignored, so it lives here); waits inside tests keep their own, shorter bounds.
  testTimeout: 60_000,
  // Two workers on two cores: most specs wait on sockets and child processes, so one worker leaves a
  // core idle. Specs that need the machine to themselves (loads, fleets) are `*.slow-spec.ts`.
  maxWorkers: 2,
  // A worker past 1 GB after a file is replaced. It also keeps jest off its in-band mode (one worker runs
  // in jest's own process), where the modules of every suite pile up: test:slow ran out of heap that way.
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  projects: [
    '<rootDir>/libs/common',
    '<rootDir>/libs/client-core',
    '<rootDir>/libs/client',
    '<rootDir>/libs/browser',
    '<rootDir>/libs/react',
    '<rootDir>/libs/react/jest.react18.config.cjs',
    '<rootDir>/libs/server',
    '<rootDir>/libs/nestjs',
    '<rootDir>/libs/express',
    '<rootDir>/libs/fastify',
    '<rootDir>/libs/openfeature',
    '<rootDir>/libs/cli',
    '<rootDir>/libs/test-harness',
    '<rootDir>/test',
    '<rootDir>/examples',
  ],
};
