// `npm test` at the root runs every workspace's tests and the end-to-end suite.
module.exports = {
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  projects: [
    '<rootDir>/libs/client',
    '<rootDir>/libs/local-server',
    '<rootDir>/libs/nestjs',
    '<rootDir>/libs/express',
    '<rootDir>/test',
  ],
};
