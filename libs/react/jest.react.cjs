// One jest project per React major, in jest's jsdom environment (test/jsdom-environment.cjs):
// jest's own DOM, loadable as CommonJS, enough for createRoot, hydrateRoot and a MutationObserver.
// The real-browser runs are the Chromium smoke test and the example apps' tests.
const path = require('node:path');
const preset = require('../../jest.preset.cjs');

const react18 = path.join(__dirname, '../../test/fixtures/react18/node_modules');

module.exports = function reactProject(dir, major) {
  const base = preset(dir);
  return {
    ...base,
    displayName: `libs/react (${major})`,
    testMatch: ['<rootDir>/test/**/*.spec.tsx'],
    testEnvironment: path.join(dir, 'test/jsdom-environment.cjs'),
    // The local server runs in the same process: its packages resolve to their Node builds, not browser ones.
    testEnvironmentOptions: { customExportConditions: ['node', 'node-addons'] },
    transform: {
      '^.+\\.(t|j)sx?$': [
        '@swc/jest',
        {
          jsc: {
            parser: { syntax: 'typescript', tsx: true },
            transform: { react: { runtime: 'automatic' } },
            target: 'es2022',
          },
          module: { type: 'commonjs' },
          sourceMaps: 'inline',
        },
      ],
    },
    moduleNameMapper: {
      ...(major === 'react18' && {
        '^react$': path.join(react18, 'react'),
        '^react/(.*)$': path.join(react18, 'react/$1'),
        '^react-dom$': path.join(react18, 'react-dom'),
        '^react-dom/(.*)$': path.join(react18, 'react-dom/$1'),
      }),
      ...base.moduleNameMapper,
    },
  };
};
