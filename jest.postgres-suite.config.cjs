// The server's whole suite again, on the PostgreSQL store (every server a spec starts without a store of its own
// gets a fresh database): one suite, both stores. Part of `npm run test:slow`; alone: `npm run test:server-on-postgres`.
const { existsSync, readdirSync } = require('node:fs');
const { delimiter, join } = require('node:path');
const server = require('./libs/server/jest.config.cjs');

/** Whether `initdb` is installed, where test/support/postgres.ts's `findPostgresBin` looks for it. */
function postgresInstalled() {
  const onPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  let debian = [];
  try {
    debian = readdirSync('/usr/lib/postgresql').map((v) => join('/usr/lib/postgresql', v, 'bin'));
  } catch {
    // Not Debian's layout.
  }
  return [...onPath, ...debian].some((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
}

// As `describeWithPostgres` does: skipped with a line outside CI when PostgreSQL is missing; run (and failing) in CI.
const run = postgresInstalled() || process.env.CI === 'true';
if (!run) {
  console.warn(
    'PostgreSQL (initdb, postgres) is not installed: skipping the server suite on PostgreSQL; install it with ' +
      '`sudo apt-get install -y postgresql` (Debian/Ubuntu) or `brew install postgresql` (macOS)',
  );
}

module.exports = {
  ...require('./jest.config.cjs'),
  passWithNoTests: !run,
  projects: [
    {
      ...server,
      displayName: 'libs/server (postgres store)',
      setupFilesAfterEnv: ['<rootDir>/test/support/postgres-store-setup.ts'],
      ...(run ? {} : { testPathIgnorePatterns: ['/'] }),
    },
  ],
};
