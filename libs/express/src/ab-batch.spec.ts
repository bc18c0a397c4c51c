import { InvalidArgumentError, type VaneClient } from '@vane/client';
import type { Request } from 'express';
import { AbBatch, routeAbKeys, type AbGuardRegistry } from './ab-batch.js';

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

  it('runs the context factory once; a context the client refuses fails closed with one warning', async () => {
    const { client, calls } = fakeClient(() => ({}));
    const factory = jest.fn(() => ({ userId: '' }));
    const warnings: string[] = [];
    const logger = { warn: (m: string) => void warnings.push(m), error: () => undefined };
    const batch = new AbBatch(client, fakeRequest('GET'), factory, new WeakMap(), logger);
    expect({ ...(await batch.evaluate(['x'])) }).toEqual({ x: false });
    expect({ ...(await batch.evaluate(['x', 'y'])) }).toEqual({ x: false, y: false });
    expect(factory).toHaveBeenCalledTimes(1);
    expect(calls).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/^A\/B evaluation of "x" failed \(VANE_INVALID_ARGUMENT\), treating them as off: /),
      expect.stringMatching(/^A\/B evaluation of "y" failed \(VANE_INVALID_ARGUMENT\)/),
    ]);
  });

  it('fails closed when the context factory itself throws (the rule of every adapter); rejects without one', async () => {
    const { client } = fakeClient(() => ({}));
    const failing = new AbBatch(
      client,
      fakeRequest('GET'),
      () => {
        throw new TypeError('session store down');
      },
      new WeakMap(),
    );
    expect({ ...(await failing.evaluate(['x'])) }).toEqual({ x: false });
    const none = new AbBatch(client, fakeRequest('GET'), undefined, new WeakMap());
    await expect(none.evaluate(['x'])).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
  });

  it('answers false without a call when the factory returns null', async () => {
    const { client, calls } = fakeClient(() => ({ x: true }));
    const batch = new AbBatch(client, fakeRequest('GET'), () => null, new WeakMap());
    expect({ ...(await batch.evaluate(['x'])) }).toEqual({ x: false });
    expect(calls).toEqual([]);
  });
});
