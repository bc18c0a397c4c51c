import type { ExecutionContext } from '@nestjs/common';
import { defaultVaneContextFactory } from './vane-context.provider.js';

const http = (user: unknown): ExecutionContext =>
  ({ getType: () => 'http', switchToHttp: () => ({ getRequest: () => ({ user }) }) }) as unknown as ExecutionContext;

describe('defaultVaneContextFactory', () => {
  it.each([
    [{ id: 'u-1' }, { userId: 'u-1' }],
    [{ sub: 'auth0|42' }, { userId: 'auth0|42' }],
    [{ id: 42 }, { userId: '42' }],
    [{ id: '' }, undefined],
    [{ id: { nested: true } }, undefined],
    [undefined, undefined],
  ])('request.user %j gives %j', (user, expected) => {
    expect(defaultVaneContextFactory(http(user))).toEqual(expected);
  });

  it('is anonymous outside HTTP', () => {
    expect(defaultVaneContextFactory({ getType: () => 'rpc' } as unknown as ExecutionContext)).toBeUndefined();
  });
});
