import { Reflector } from '@nestjs/core';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { FeatureFlag } from './feature-flag.decorator.js';
import { FeatureFlagGuard } from './feature-flag.guard.js';
import { FeatureFlagRequirement } from './feature-flag.metadata.js';
import { Flag } from './flag.decorator.js';
import { Secret } from './secret.decorator.js';
import { SecretUnavailableException } from './errors/secret-unavailable.exception.js';
import { paramsOf } from './utils/param-metadata.js';

describe('decorators', () => {
  it('@FeatureFlag() records typed metadata and applies the guard', () => {
    class C {
      @FeatureFlag(['a', 'b'], { ab: true, exception: 403 })
      m(): void {}
    }
    const reflector = new Reflector();
    expect(reflector.get(FeatureFlagRequirement, C.prototype.m)).toEqual({
      keys: ['a', 'b'],
      ab: true,
      exception: 403,
    });
    expect(Reflect.getMetadata(GUARDS_METADATA, C.prototype.m)).toEqual([FeatureFlagGuard]);
  });

  it('refuses empty keys at decoration time', () => {
    expect(() => FeatureFlag([])).toThrow(/non-empty array of flag keys/);
    expect(() => FeatureFlag('')).toThrow(/flag keys are 1 to 256 characters/);
    expect(() => Secret('')).toThrow(/@Secret\(\) needs a non-empty key/);
    expect(() => Flag(undefined as unknown as string)).toThrow(/@Flag\(\) needs a non-empty key, got undefined/);
  });

  it('@Secret() and @Flag() record their parameters in order', () => {
    class C {
      m(@Flag('f', { ab: true }) _f: boolean, @Secret('s', { file: true }) _s: string): void {}
    }
    expect(paramsOf(C, 'm')).toEqual([
      { kind: 'flag', key: 'f', index: 0, options: { ab: true } },
      { kind: 'secret', key: 's', index: 1, options: { file: true } },
    ]);
  });
});

describe('SecretUnavailableException', () => {
  it('is a generic 500 for the caller; the key, the reason and the fix are on the exception', () => {
    const e = new SecretUnavailableException('db.password', 'absent');
    expect(e.getStatus()).toBe(500);
    expect(e.getResponse()).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(e.message).toBe('Internal server error');
    expect(e).toMatchObject({ code: 'VANE_NEST_SECRET_UNAVAILABLE', key: 'db.password', reason: 'absent' });
    expect(e.detail).toMatch(/text secret "db\.password" is not in the Vane snapshot/);
  });
});
