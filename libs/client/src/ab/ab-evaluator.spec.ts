import { AB_CACHE_DEFAULTS } from './ab-cache-options.js';
import { planAbEvaluation, type AbPlan, type AbResults } from '@vane/client-core';
import { AbEvaluator } from './ab-evaluator.js';

interface Call {
  readonly keys: readonly string[];
  readonly userId: string;
  readonly attributes: Record<string, string>;
  resolve(results: AbResults): void;
  reject(error: unknown): void;
}

/** An evaluator whose calls the test answers by hand. */
function harness(cached = true) {
  const calls: Call[] = [];
  const clock = { nowMs: 0, now: () => clock.nowMs };
  const evaluator = new AbEvaluator(
    (plan: AbPlan, userId, attributes) =>
      new Promise<AbResults>((resolve, reject) =>
        calls.push({ keys: plan.batches.flat(), userId, attributes, resolve, reject }),
      ),
    cached ? AB_CACHE_DEFAULTS : undefined,
    clock,
  );
  const ask = (keys: string[], revision = 1, userId = 'u', attributes: Record<string, string> = {}) =>
    evaluator.evaluate(
      planAbEvaluation(keys, () => true),
      userId,
      attributes,
      revision,
    );
  return { calls, evaluator, ask };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AbEvaluator', () => {
  it('answers a returning user from the cache', async () => {
    const { calls, evaluator, ask } = harness();
    const first = ask(['a', 'b']);
    calls[0]!.resolve({ a: true, b: false });
    expect({ ...(await first) }).toEqual({ a: true, b: false });
    expect({ ...(await ask(['b', 'a'])) }).toEqual({ b: false, a: true });
    expect(calls).toHaveLength(1);
    expect(evaluator.stats).toMatchObject({ enabled: true, hits: 2, misses: 2, coalesced: 0, size: 2 });
  });

  it('a call for [a, b] in flight serves a later ask for [b]; an ask for [b] in flight sends only [a] of [a, b]', async () => {
    const { calls, evaluator, ask } = harness();
    const ab = ask(['a', 'b']);
    const b = ask(['b']);
    expect(calls.map((c) => c.keys)).toEqual([['a', 'b']]);
    calls[0]!.resolve({ a: true, b: true });
    expect({ ...(await ab) }).toEqual({ a: true, b: true });
    expect({ ...(await b) }).toEqual({ b: true });

    const later = harness();
    const onlyC = later.ask(['c']);
    const cd = later.ask(['d', 'c']);
    expect(later.calls.map((c) => c.keys)).toEqual([['c'], ['d']]);
    later.calls[1]!.resolve({ d: true });
    later.calls[0]!.resolve({ c: false });
    expect({ ...(await cd) }).toEqual({ d: true, c: false });
    expect({ ...(await onlyC) }).toEqual({ c: false });
    expect(later.evaluator.stats).toMatchObject({ misses: 2, coalesced: 1 });
    expect(evaluator.stats).toMatchObject({ misses: 2, coalesced: 1 });
  });

  it('tells users and attributes apart, and not the order of the attributes', async () => {
    const { calls, ask } = harness();
    const first = ask(['a'], 1, 'u', { country: 'DE', plan: 'pro' });
    calls[0]!.resolve({ a: true });
    await first;
    await ask(['a'], 1, 'u', { plan: 'pro', country: 'DE' });
    expect(calls).toHaveLength(1);
    void ask(['a'], 1, 'u', { plan: 'free', country: 'DE' });
    void ask(['a'], 1, 'v', { plan: 'pro', country: 'DE' });
    void ask(['a'], 1, 'u', { country: 'DE' });
    expect(calls).toHaveLength(4);
  });

  it("asks in flight at once: the same attributes in another order share a call; one user's calls land in any order", async () => {
    const { calls, evaluator, ask } = harness();
    const a1 = ask(['a'], 1, 'u', { country: 'DE', plan: 'pro' });
    const a2 = ask(['a'], 1, 'u', { plan: 'pro', country: 'DE' });
    const b = ask(['b'], 1, 'u', { country: 'DE', plan: 'pro' });
    const c = ask(['c'], 1, 'u', { country: 'FR' });
    expect(calls.map((call) => call.keys)).toEqual([['a'], ['b'], ['c']]);
    // The user's second call lands first: the first and the third are still found in flight.
    calls[1]!.resolve({ b: true });
    expect({ ...(await b) }).toEqual({ b: true });
    const a3 = ask(['a'], 1, 'u', { plan: 'pro', country: 'DE' });
    const c2 = ask(['c'], 1, 'u', { country: 'FR' });
    calls[2]!.resolve({ c: false });
    calls[0]!.resolve({ a: true });
    for (const answer of [a1, a2, a3]) expect({ ...(await answer) }).toEqual({ a: true });
    expect({ ...(await c) }).toEqual({ c: false });
    expect({ ...(await c2) }).toEqual({ c: false });
    expect(calls).toHaveLength(3);
    expect(evaluator.stats).toMatchObject({ misses: 3, coalesced: 3, size: 3 });
    // Nothing is left in flight: the next asks are hits.
    expect({ ...(await ask(['a', 'b'], 1, 'u', { country: 'DE', plan: 'pro' })) }).toEqual({ a: true, b: true });
    expect(calls).toHaveLength(3);
  });

  it('never caches a failure: every waiter gets it, the next ask calls again', async () => {
    const { calls, evaluator, ask } = harness();
    const one = ask(['a']);
    const two = ask(['a']);
    const error = Object.assign(new Error('add-on off'), { code: 'VANE_ADDON_NOT_AVAILABLE' });
    calls[0]!.reject(error);
    await expect(one).rejects.toBe(error);
    await expect(two).rejects.toBe(error);
    await flush();
    expect(evaluator.stats).toMatchObject({ size: 0 });
    const three = ask(['a']);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve({ a: true });
    expect({ ...(await three) }).toEqual({ a: true });
  });

  it('a new revision asks again, shares no call in flight from before, and stores no answer of before', async () => {
    const { calls, evaluator, ask } = harness();
    const old = ask(['a'], 1);
    const fresh = ask(['a'], 2);
    expect(calls).toHaveLength(2);
    calls[0]!.resolve({ a: false });
    calls[1]!.resolve({ a: true });
    expect({ ...(await old) }).toEqual({ a: false });
    expect({ ...(await fresh) }).toEqual({ a: true });
    await flush();
    expect({ ...(await ask(['a'], 2)) }).toEqual({ a: true });
    expect(calls).toHaveLength(2);
    expect(evaluator.stats).toMatchObject({ size: 1, hits: 1 });
  });

  it('without a cache, every ask is one call', async () => {
    const { calls, evaluator, ask } = harness(false);
    const asks = [ask(['a']), ask(['a']), ask(['a'])];
    expect(calls).toHaveLength(3);
    calls.forEach((c) => c.resolve({ a: true }));
    await Promise.all(asks);
    expect(evaluator.stats).toEqual({
      enabled: false,
      hits: 0,
      misses: 0,
      coalesced: 0,
      size: 0,
      bytes: 0,
      evictions: 0,
      expirations: 0,
      invalidations: 0,
    });
  });
});
