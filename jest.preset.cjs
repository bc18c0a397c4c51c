// Shared jest settings for every workspace: TypeScript through SWC (fast, keeps
// decorator metadata for Nest), `./x.js` specifiers mapped to their `.ts` source,
// and `@vane/*` mapped to the workspaces' sources so tests never need a build.
const path = require('node:path');

const root = __dirname;

module.exports = function preset(dir, overrides = {}) {
  return {
    displayName: path.relative(root, dir) || 'root',
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/**/*.e2e-spec.ts'],
    // Anchored at the project: a checkout inside a folder named `fixtures` still runs its tests.
    testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/(.+/)?fixtures/'],
    transform: {
      '^.+\\.(t|j)s$': [
        '@swc/jest',
        {
          jsc: {
            parser: { syntax: 'typescript', decorators: true },
            transform: { legacyDecorator: true, decoratorMetadata: true },
            target: 'es2022',
          },
          module: { type: 'commonjs' },
          sourceMaps: 'inline',
        },
      ],
    },
    // arktype and its arkregex/@ark packages ship ESM only: SWC compiles them to CommonJS like our sources.
    transformIgnorePatterns: ['/node_modules/(?!(arktype|arkregex|@ark)/)'],
    moduleNameMapper: {
      '^@vane/(common|client-core|client|browser|react|server|nestjs|express|fastify|openfeature|cli|test-harness)$':
        path.join(root, 'libs/$1/src/index.ts'),
      '^@vane/browser/(storage|share|ab|bootstrap|plugin)$': path.join(root, 'libs/browser/src/$1.ts'),
      '^@vane/client/adapter$': path.join(root, 'libs/client/src/adapter/index.ts'),
      '^@vane/openfeature/web$': path.join(root, 'libs/openfeature/src/web/index.ts'),
      '^@vane/client/errors$': path.join(root, 'libs/client/src/errors.ts'),
      '^@vane/nestjs/testing$': path.join(root, 'libs/nestjs/src/testing/index.ts'),
      '^@vane/server/testing$': path.join(root, 'libs/server/src/testing/index.ts'),
      '^@vane/cli/api$': path.join(root, 'libs/cli/src/api/index.ts'),
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    ...overrides,
  };
};
