import type { AbContext, AbResults } from '@vane/client';
import { AbBatcher } from './ab-batcher.js';

function recorder(answer: (keys: readonly string[]) => AbResults | Error) {
  const calls: { keys: readonly string[]; context: AbContext }[] = [];
  const batcher = new AbBatcher((keys, context) => {
    calls.push({ keys, context });
    const result = answer(keys);
    return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
  });
  return { calls, batcher };
}

const user = { userId: 'u1', attributes: { country: 'DE' } };
const allOn = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, true]));

describe('AbBatcher', () => {
  it('one call per batch key and turn, each key once', async () => {
    const { calls, batcher } = recorder(allOn);
    const values = await Promise.all([
      batcher.evaluate('a', user, 'k1'),
      batcher.evaluate('b', user, 'k1'),
      batcher.evaluate('a', user, 'k1'),
      batcher.evaluate('a', { userId: 'u2' }, 'k2'),
    ]);
    expect(values).toEqual([true, true, true, true]);
    expect(calls).toEqual([
      { keys: ['a', 'b'], context: user },
      { keys: ['a'], context: { userId: 'u2' } },
    ]);
  });

  it('a key missing from the answer is false', async () => {
    const { batcher } = recorder(() => ({ a: true }));
    await expect(Promise.all([batcher.evaluate('a', user, 'k'), batcher.evaluate('b', user, 'k')])).resolves.toEqual([
      true,
      false,
    ]);
  });

  it('a failed call fails every evaluation of its batch, and only those', async () => {
    const failure = new Error('boom');
    const { batcher } = recorder((keys) => (keys.includes('bad') ? failure : allOn(keys)));
    const results = await Promise.allSettled([
      batcher.evaluate('bad', user, 'k1'),
      batcher.evaluate('x', user, 'k1'),
      batcher.evaluate('y', user, 'k2'),
    ]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: true },
    ]);
  });

  it('cancel() fails what is pending and sends nothing', async () => {
    const { calls, batcher } = recorder(allOn);
    const pending = batcher.evaluate('a', user, 'k');
    const reason = new Error('closed');
    batcher.cancel(reason);
    await expect(pending).rejects.toBe(reason);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
  });
});
