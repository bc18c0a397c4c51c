import type { VaneClient, VaneLogger } from '@vane/client';
import { RequestAbEvaluation } from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import type { Request } from 'express';
import { expressAbOptions, routeAbKeys, type AbGuardRegistry } from './ab-batch.js';
import type { AbContextFactory } from './vane-express.options.js';

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

describe('expressAbOptions: the request memo of req.vane and the A/B guards', () => {
  function fakeClient(evaluate: (keys: readonly string[]) => Record<string, boolean>, cache?: Record<string, boolean>) {
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
      // The client's cache, when the test gives one: answers only when it knows every key.
      evaluateAbCached: (keys: readonly string[]) =>
        cache !== undefined && keys.every((k) => k in cache)
          ? Object.fromEntries(keys.map((k) => [k, cache[k]!]))
          : undefined,
    } as unknown as VaneClient;
    return { client, calls };
  }

  const batchOf = (
    client: VaneClient,
    factory: AbContextFactory | undefined,
    registry: AbGuardRegistry = new WeakMap(),
    logger?: VaneLogger,
    req: Request = fakeRequest('GET'),
  ) => new RequestAbEvaluation(expressAbOptions(client, factory, registry, logger), req);

  it("plans with the route's A/B guard keys, remembered per route and method, read again once the route grows", () => {
    const guard = (): void => undefined;
    const later = (): void => undefined;
    const registry: AbGuardRegistry = new WeakMap([
      [guard, ['a']],
      [later, ['b']],
    ]);
    const route = { methods: { get: true }, stack: [{ method: 'get', handle: guard }] };
    const { plannedKeys } = expressAbOptions(fakeClient(() => ({})).client, () => null, registry);
    const first = plannedKeys!(fakeRequest('GET', route));
    expect(first).toEqual(['a']);
    expect(plannedKeys!(fakeRequest('GET', route))).toBe(first);
    expect(plannedKeys!(fakeRequest('POST', route))).toEqual([]);
    route.stack.push({ method: 'get', handle: later });
    expect(plannedKeys!(fakeRequest('GET', route))).toEqual(['a', 'b']);
  });

  it('evaluates each key once per request, sharing concurrent asks', async () => {
    const { client, calls } = fakeClient((keys) => Object.fromEntries(keys.map((k) => [k, k !== 'off'])));
    const batch = batchOf(client, () => ({ userId: 'u' }));
    const [first, second] = await Promise.all([batch.evaluate(['x', 'off']), batch.evaluate(['x'])]);
    expect({ ...first }).toEqual({ x: true, off: false });
    expect({ ...second }).toEqual({ x: true });
    expect({ ...(await batch.evaluate(['off', 'y'])) }).toEqual({ off: false, y: true });
    expect(calls).toEqual([['x', 'off'], ['y']]);
  });

  it("answers from the client's cache synchronously, the route's guards' keys included, with no call", () => {
    const { client, calls } = fakeClient(() => ({}), { a1: true, a2: false, b: true });
    const guard = (): void => undefined;
    const registry: AbGuardRegistry = new WeakMap([[guard, ['a1', 'a2', 'b']]]);
    const route = { methods: { get: true }, stack: [{ method: 'get', handle: guard }] };
    const batch = batchOf(client, () => ({ userId: 'u' }), registry, undefined, fakeRequest('GET', route));
    expect(batch.offKey(['a1'])).toBeNull();
    expect(batch.offKey(['b', 'a2'])).toBe('a2');
    expect({ ...(batch.now(['a2', 'b']) as Record<string, boolean>) }).toEqual({ a2: false, b: true });
    expect(calls).toEqual([]);
  });

  it('runs the context factory once; a context the client refuses fails closed with one warning', async () => {
    const { client, calls } = fakeClient(() => ({}));
    const factory = jest.fn(() => ({ userId: '' }));
    const warnings: string[] = [];
    const logger = { warn: (m: string) => void warnings.push(m), error: () => undefined };
    const batch = batchOf(client, factory, new WeakMap(), logger);
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
    const warnings: string[] = [];
    const logger = { warn: (m: string) => void warnings.push(m), error: () => undefined };
    const failing = batchOf(
      client,
      () => {
        throw new TypeError('session store down');
      },
      new WeakMap(),
      logger,
    );
    expect({ ...(await failing.evaluate(['x'])) }).toEqual({ x: false });
    expect(warnings).toEqual([expect.stringMatching(/^abContext failed, treating the request as anonymous/)]);
    const none = batchOf(client, undefined);
    await expect(none.evaluate(['x'])).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
    await expect(none.offKey(['x'])).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
  });

  it('answers false without a call when the factory returns null, synchronously', async () => {
    const { client, calls } = fakeClient(() => ({ x: true }));
    const batch = batchOf(client, () => null);
    expect(batch.offKey(['x'])).toBe('x');
    expect({ ...(await batch.evaluate(['x'])) }).toEqual({ x: false });
    expect(calls).toEqual([]);
  });
});
