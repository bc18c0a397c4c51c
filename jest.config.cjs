// `npm test` at the root runs every workspace's tests and the end-to-end suite.
module.exports = {
  // A temp directory of the run's own, checked at the end for file secrets a test left behind.
  globalSetup: '<rootDir>/scripts/jest-global-setup.cjs',
  globalTeardown: '<rootDir>/scripts/jest-global-teardown.cjs',
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  projects: [
    '<rootDir>/libs/common',
    '<rootDir>/libs/client',
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
