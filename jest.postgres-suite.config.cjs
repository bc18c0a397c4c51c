// `npm run test:server-on-postgres`: the server's whole suite again, on the PostgreSQL store (every server a
// spec starts without a store of its own gets a fresh database). Not yet part of `test:slow`: six specs still
// assume what only one process on memory or a file does (see the fleet section of libs/server/README.md).
const server = require('./libs/server/jest.config.cjs');

module.exports = {
  ...require('./jest.config.cjs'),
  projects: [
    {
      ...server,
      displayName: 'libs/server (postgres store)',
      setupFilesAfterEnv: ['<rootDir>/test/support/postgres-store-setup.ts'],
    },
  ],
};
