import { contextOf } from '../test/support/context.js';
import { defaultVaneContextFactory } from './vane-context.provider.js';

describe('defaultVaneContextFactory', () => {
  it.each([
    [{ id: 'u-1' }, { userId: 'u-1' }],
    [{ sub: 'auth0|42' }, { userId: 'auth0|42' }],
    [{ id: 42 }, { userId: '42' }],
    [{ id: '' }, null],
    [{ id: { nested: true } }, null],
    ['u-1', null],
    [undefined, null],
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
