import type { Logger } from '@nestjs/common';
import { contextOf } from '../test/support/context.js';
import { defaultVaneContextFactory, failClosed } from './vane-context.provider.js';

describe('defaultVaneContextFactory', () => {
  it.each([
    [{ id: 'u-1' }, { userId: 'u-1' }],
    [{ sub: 'auth0|42' }, { userId: 'auth0|42' }],
    [{ id: 42 }, { userId: '42' }],
    [{ id: '' }, undefined],
    [{ id: { nested: true } }, undefined],
    ['u-1', undefined],
    [undefined, undefined],
  ])('request.user %j gives %j', (user, expected) => {
    expect(defaultVaneContextFactory(contextOf('http', [{ user }, {}]))).toEqual(expected);
  });

  it.each([
    ['graphql', [undefined, {}, { req: { user: { id: 'g-1' } } }, {}], 'g-1'],
    ['rpc', [{ user: { id: 'r-1' } }, {}], 'r-1'],
    ['ws', [{ user: { sub: 'w-1' } }, {}, 'msg'], 'w-1'],
  ])('finds the user on %s', (type, args, userId) => {
    expect(defaultVaneContextFactory(contextOf(type, args))).toEqual({ userId });
  });
});

describe('failClosed', () => {
  const ctx = contextOf('http', [{}, {}]);
  const logger = (): { warn: jest.Mock } & Pick<Logger, 'warn'> => ({ warn: jest.fn() });

  it('a factory that throws makes the request anonymous, with one warning', () => {
    const log = logger();
    const factory = failClosed(() => {
      throw Object.assign(new Error('no session store'), { code: 'ESESSION' });
    }, log);
    expect(factory(ctx)).toBeUndefined();
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(/abContext failed on a http request \(ESESSION\).*no session store/),
    );
  });

  it('a factory that rejects makes the request anonymous, with one warning', async () => {
    const log = logger();
    await expect(failClosed(() => Promise.reject(new Error('jwks down')), log)(ctx)).resolves.toBeUndefined();
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it('passes answers through untouched, synchronous ones synchronously', async () => {
    const log = logger();
    expect(failClosed(() => ({ userId: 'u' }), log)(ctx)).toEqual({ userId: 'u' });
    await expect(failClosed(() => Promise.resolve({ userId: 'v' }), log)(ctx)).resolves.toEqual({ userId: 'v' });
    expect(log.warn).not.toHaveBeenCalled();
  });
});
