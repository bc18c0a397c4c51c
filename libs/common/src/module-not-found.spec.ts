import { isModuleNotFound } from './module-not-found.js';

describe('isModuleNotFound', () => {
  it("is true for the not-found error Node throws, and for import()'s code", async () => {
    const name = '@vane/no-such-package';
    const failure: unknown = await import(name).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isModuleNotFound(failure)).toBe(true);
    expect(isModuleNotFound(Object.assign(new Error('x'), { code: 'ERR_MODULE_NOT_FOUND' }))).toBe(true);
  });

  it('is false for a module that failed to load, and for anything not an error', () => {
    expect(isModuleNotFound(new SyntaxError('Unexpected token'))).toBe(false);
    expect(isModuleNotFound(Object.assign(new Error('x'), { code: 'ERR_REQUIRE_ESM' }))).toBe(false);
    expect(isModuleNotFound('MODULE_NOT_FOUND')).toBe(false);
    expect(isModuleNotFound(null)).toBe(false);
  });
});
