// The README's NestJS tests (examples/nestjs), run by `npm test` with the other projects.
module.exports = require('../jest.preset.cjs')(__dirname, {
  testMatch: ['<rootDir>/nestjs/src/*.spec.ts', '<rootDir>/nestjs/test/*.e2e-spec.ts'],
});
