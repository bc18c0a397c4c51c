// `npm test` at the root runs every workspace's tests and the end-to-end suite.
module.exports = {
  projects: [
    '<rootDir>/libs/client',
    '<rootDir>/libs/local-server',
    '<rootDir>/libs/nestjs',
    '<rootDir>/libs/express',
    '<rootDir>/test',
  ],
};
