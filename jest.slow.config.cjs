// `npm run test:slow`: the specs too slow for `npm test` (loads of 10,000 requests, the browser, packed
// packages, spawned apps), named `*.slow-spec.ts`, and the server's whole suite again on the PostgreSQL store
// (jest.postgres-suite.config.cjs). `.ci/run` runs them after `npm test`.
const base = require('./jest.config.cjs');
const onPostgres = require('./jest.postgres-suite.config.cjs');

module.exports = {
  ...base,
  // Loads, fleets and timed rotations measure this machine: one at a time.
  maxWorkers: 1,
  projects: [
    ...base.projects.map((project) => {
      // A project is a workspace folder, or (React 18's run of libs/react) a config file of its own.
      const path = project.replace('<rootDir>', __dirname);
      const config = require(path.endsWith('.cjs') ? path : `${path}/jest.config.cjs`);
      return { ...config, testMatch: ['<rootDir>/**/*.slow-spec.ts'] };
    }),
    ...onPostgres.projects,
  ],
};
