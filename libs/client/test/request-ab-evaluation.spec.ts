import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneClient, type AbContext, type AbResults } from '../src/index.js';
import { RequestAbEvaluation } from '../src/adapter/index.js';
import { InvalidArgumentError } from '../src/errors.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { SHOP_SK, seed } from './helpers/seed.js';
import { FaultProxy } from '@vane/test-harness';

/** The request-scoped A/B evaluation both adapters use, against the local server behind a counting proxy. */
let server: VaneServer;
let proxy: FaultProxy;
let client: VaneClient;
let logger: MemoryLogger;

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  logger = new MemoryLogger();
  client = await VaneClient.create({ baseUrl: proxy.baseUrl('shop'), apiKey: SHOP_SK, stream: false, logger });
});

afterEach(async () => {
  await client.close();
  await proxy.close();
  await server.close();
});

const calls = (): number => proxy.count('/v1/flags/evaluate-ab');

function evaluation(
  context: () => AbContext | null | undefined | Promise<AbContext | null | undefined>,
  planned: readonly string[] = [],
  cached = false,
): RequestAbEvaluation {
  return new RequestAbEvaluation({
    evaluate: (keys, user) => client.evaluateAb(keys, user),
    ...(cached ? { cached: (keys, user) => client.evaluateAbCached(keys, user) } : {}),
    context,
    plannedKeys: () => planned,
    logger,
  });
}

describe('RequestAbEvaluation', () => {
  it('sends the planned keys with the first ask, once; concurrent and later asks share the answer', async () => {
    const context = jest.fn(() => ({ userId: 'u-8812' }));
    const request = evaluation(context, ['always-on', 'dark-mode']);
    const [a, b] = await Promise.all([request.evaluate(['always-on']), request.evaluate(['dark-mode', 'always-on'])]);
    expect({ ...a }).toEqual({ 'always-on': true });
    expect({ ...b }).toEqual({ 'dark-mode': false, 'always-on': true });
    expect({ ...(await request.evaluate(['dark-mode'])) }).toEqual({ 'dark-mode': false });
    expect(calls()).toBe(1);
    expect(context).toHaveBeenCalledTimes(1);
  });

  it('an anonymous request is off for every key, with no call', async () => {
    expect({ ...(await evaluation(() => undefined).evaluate(['always-on'])) }).toEqual({ 'always-on': false });
    expect(calls()).toBe(0);
  });

  it('fails closed when the service refuses (add-on off): every key false, one warning with the code', async () => {
    server.admin.setTenant({ ab_addon: false });
    const request = evaluation(() => ({ userId: 'u' }), ['dark-mode']);
    expect({ ...(await request.evaluate(['always-on'])) }).toEqual({ 'always-on': false });
    expect({ ...(await request.evaluate(['dark-mode'])) }).toEqual({ 'dark-mode': false });
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      expect.stringMatching(
        /^A\/B evaluation of "always-on", "dark-mode" failed \(VANE_ADDON_NOT_AVAILABLE\), treating them as off/,
      ),
    ]);
  });

  it("answers a returning user synchronously from the client's cache: no promise, no call", async () => {
    const user = { userId: 'u-8812' };
    const first = evaluation(() => user, ['dark-mode'], true);
    const off = first.offKey(['always-on']);
    expect(off).toBeInstanceOf(Promise); // a new user: one call, the planned key with it
    expect(await off).toBeNull();
    expect(calls()).toBe(1);
    expect(first.offKey(['dark-mode', 'always-on'])).toBe('dark-mode'); // answered by that call
    const returning = evaluation(() => user, ['dark-mode'], true);
    expect(returning.offKey(['always-on'])).toBeNull();
    expect({ ...(returning.now(['dark-mode', 'always-on']) as AbResults) }).toEqual({
      'dark-mode': false,
      'always-on': true,
    });
    expect({ ...(await returning.evaluate(['always-on'])) }).toEqual({ 'always-on': true });
    expect(calls()).toBe(1);
    // Anonymous: off, at once, with no call.
    expect(evaluation(() => null, [], true).offKey(['always-on'])).toBe('always-on');
    // A context given by a promise: the first answer waits for it, the next ones do not.
    const later = evaluation(() => Promise.resolve(user), ['dark-mode'], true);
    expect(await later.offKey(['always-on'])).toBeNull();
    expect(later.offKey(['always-on'])).toBeNull();
    expect(calls()).toBe(1);
  });

  it('asks for the plan only when a call is needed: a first question the cache answers never reads it', async () => {
    const user = { userId: 'u-8812' };
    const planOf = (): { memo: RequestAbEvaluation; plans: jest.Mock } => {
      const plans = jest.fn(() => ['dark-mode']);
      const memo = new RequestAbEvaluation({
        evaluate: (keys, u) => client.evaluateAb(keys, u),
        cached: (keys, u) => client.evaluateAbCached(keys, u),
        context: () => user,
        plannedKeys: plans,
        logger,
      });
      return { memo, plans };
    };
    // A new user: the miss sends the key asked with the plan, in one call.
    const first = planOf();
    expect(await first.memo.offKey(['always-on'])).toBeNull();
    expect(first.plans).toHaveBeenCalled();
    expect(calls()).toBe(1);
    expect(client.abCacheStats).toMatchObject({ misses: 2, hits: 0 });
    // A returning user: the guard's key from the cache, synchronously; the plan is never looked up.
    const returning = planOf();
    expect(returning.memo.offKey(['always-on'])).toBeNull();
    expect(returning.plans).not.toHaveBeenCalled();
    // A later question of the same request (another guard's key) is answered from the cache too.
    expect(returning.memo.offKey(['dark-mode'])).toBe('dark-mode');
    expect(calls()).toBe(1);
    expect(client.abCacheStats).toMatchObject({ misses: 2, hits: 2 });
    // A first question the cache cannot answer: one call, carrying the plan's key the cache lost.
    server.admin.setConfig('shop', 'unrelated.change', 1); // a new revision: every cached answer is unusable
    await client.sync();
    const after = planOf();
    const off = after.memo.offKey(['always-on']);
    expect(off).toBeInstanceOf(Promise);
    expect(await off).toBeNull();
    expect(after.plans).toHaveBeenCalled();
    expect(after.memo.offKey(['dark-mode'])).toBe('dark-mode'); // came with that call
    expect(calls()).toBe(2);
  });

  it('made without its request, hands each question its own request to the context, plan and logger functions', async () => {
    // What an adapter does that keeps the memo in a WeakMap keyed by the request (@vane/nestjs):
    // the memo must not refer to its key, so the request comes with every question.
    interface Req {
      readonly user: string;
      readonly route: readonly string[];
    }
    const seen: { context: Req[]; planned: Req[]; logger: Req[] } = { context: [], planned: [], logger: [] };
    server.admin.setTenant({ ab_addon: false });
    const memo = new RequestAbEvaluation<Req>({
      evaluate: (keys, user) => client.evaluateAb(keys, user),
      context: (req) => (seen.context.push(req), { userId: req.user }),
      plannedKeys: (req) => (seen.planned.push(req), req.route),
      logger: (req) => (seen.logger.push(req), logger),
    });
    const req: Req = { user: 'u-8812', route: ['dark-mode'] };
    expect(await memo.offKey(['always-on'], req)).toBe('always-on'); // the add-on is off: fails closed
    expect({ ...(await memo.evaluate(['dark-mode'], req)) }).toEqual({ 'dark-mode': false }); // planned: no new call
    expect({ ...(memo.now(['always-on'], req) as AbResults) }).toEqual({ 'always-on': false });
    expect(calls()).toBe(1);
    expect(seen.context).toEqual([req]);
    expect(seen.planned.length).toBeGreaterThan(0);
    expect(new Set([...seen.planned, ...seen.logger])).toEqual(new Set([req]));
    expect(logger.text('warn')).toContain(
      'A/B evaluation of "always-on", "dark-mode" failed (VANE_ADDON_NOT_AVAILABLE)',
    );
  });

  it('fails closed when the app context function throws (anonymous, one warning); rejects Vane argument errors and after close()', async () => {
    const failing = evaluation(() => {
      throw new TypeError('session store down');
    });
    await expect(failing.evaluate(['always-on'])).resolves.toEqual({ 'always-on': false });
    expect(logger.text('warn')).toContain('abContext failed, treating the request as anonymous');
    const unwired = evaluation(() => {
      throw new InvalidArgumentError('no abContext option');
    });
    await expect(unwired.evaluate(['always-on'])).rejects.toMatchObject({ code: 'VANE_INVALID_ARGUMENT' });
    await client.close();
    await expect(evaluation(() => ({ userId: 'u' })).evaluate(['always-on'])).rejects.toMatchObject({
      code: 'VANE_CLIENT_CLOSED',
    });
  });
});
