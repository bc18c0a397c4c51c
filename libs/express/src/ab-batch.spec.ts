import { InvalidArgumentError, type VaneClient } from '@vane/client';
import type { Request } from 'express';
import { AbBatch, routeAbKeys, type AbGuardRegistry } from './ab-batch.js';
import { AbContextError } from './errors/ab-context.error.js';

const guardA = (): void => undefined;
const guardB = (): void => undefined;
const plain = (): void => undefined;

function fakeRequest(method: string, route?: unknown): Request {
  return { method, route } as unknown as Request;
}

describe('routeAbKeys', () => {
  const registry: AbGuardRegistry = new WeakMap([
    [guardA, ['a1', 'a2']],
    [guardB, ['b']],
  ]);
  const route = {
    methods: { get: true, post: true },
    stack: [
      { method: 'get', handle: guardA },
      { method: 'post', handle: guardB },
      { method: undefined, handle: guardB }, // route.all()
      { method: 'get', handle: plain },
    ],
  };

  it('collects the keys of the registered guards for the request method, route.all() layers included', () => {
    expect(routeAbKeys(fakeRequest('GET', route), registry)).toEqual(['a1', 'a2', 'b']);
    expect(routeAbKeys(fakeRequest('POST', route), registry)).toEqual(['b', 'b']);
  });

  it('runs the GET guards for HEAD unless the route has HEAD handlers, as Express does', () => {
    expect(routeAbKeys(fakeRequest('HEAD', route), registry)).toEqual(['a1', 'a2', 'b']);
    expect(routeAbKeys(fakeRequest('HEAD', { ...route, methods: { ...route.methods, head: true } }), registry)).toEqual(
      ['b'],
    );
  });

  it('finds nothing outside a route (app.use) or on an unknown shape', () => {
    expect(routeAbKeys(fakeRequest('GET'), registry)).toEqual([]);
    expect(routeAbKeys(fakeRequest('GET', { stack: 'nope' }), registry)).toEqual([]);
  });
});

describe('AbBatch', () => {
  function fakeClient(evaluate: (keys: readonly string[]) => Record<string, boolean>) {
    const calls: string[][] = [];
    const client = {
      evaluateAb: (keys: readonly string[], context: { userId?: unknown }) => {
        if (typeof context.userId !== 'string' || context.userId === '') {
          // What the client does: refuse the context synchronously.
          throw new InvalidArgumentError('evaluateAb: userId must be a non-empty string, got undefined');
        }
        calls.push([...keys]);
        return Promise.resolve(evaluate(keys));
      },
    } as unknown as VaneClient;
    return { client, calls };
  }

  it('evaluates each key once per request, sharing concurrent asks', async () => {
    const { client, calls } = fakeClient((keys) => Object.fromEntries(keys.map((k) => [k, k !== 'off'])));
    const batch = new AbBatch(client, fakeRequest('GET'), () => ({ userId: 'u' }), new WeakMap());
    const [first, second] = await Promise.all([batch.evaluate(['x', 'off']), batch.evaluate(['x'])]);
    expect({ ...first }).toEqual({ x: true, off: false });
    expect({ ...second }).toEqual({ x: true });
    expect({ ...(await batch.evaluate(['off', 'y'])) }).toEqual({ off: false, y: true });
    expect(calls).toEqual([['x', 'off'], ['y']]);
  });

  it('runs the context factory once, and wraps a refused context in AbContextError', async () => {
    const { client, calls } = fakeClient(() => ({}));
    const factory = jest.fn(() => ({ userId: '' }));
    const batch = new AbBatch(client, fakeRequest('GET'), factory, new WeakMap());
    await expect(batch.evaluate(['x'])).rejects.toBeInstanceOf(AbContextError);
    await expect(batch.evaluate(['y'])).rejects.toMatchObject({ code: 'VANE_AB_CONTEXT_INVALID', status: 400 });
    expect(factory).toHaveBeenCalledTimes(1);
    expect(calls).toEqual([]);
  });

  it('answers false without a call when the factory returns null', async () => {
    const { client, calls } = fakeClient(() => ({ x: true }));
    const batch = new AbBatch(client, fakeRequest('GET'), () => null, new WeakMap());
    expect({ ...(await batch.evaluate(['x'])) }).toEqual({ x: false });
    expect(calls).toEqual([]);
  });
});
