import { InvalidArgumentError } from './errors.js';
import { publicSnapshotJson, readBootstrap, readBootstrapAb, readBootstrapState } from './bootstrap.js';
import { parseSnapshot } from './snapshot.js';

const wire = {
  service: { slug: 'shop', kind: 'backend' },
  revision: 7,
  configs: { 'db.pool.max': 10, 'cors.origins': ['https://a.example'] },
  flags: { 'new-checkout': { is_enabled: true, starts_at: null, ends_at: null, is_active: true } },
  secrets: { 'stripe.api_key': { type: 'text', value: 'rk_test_123', version: 1 } },
};

describe('bootstrap', () => {
  it('holds the public part of a snapshot only, and reads back to the same snapshot', () => {
    const json = publicSnapshotJson(parseSnapshot(wire));
    expect(JSON.stringify(json)).not.toContain('stripe');
    const { secrets: _secrets, ...expected } = wire;
    expect(JSON.parse(JSON.stringify(json))).toEqual(expected);
    const read = readBootstrap({
      v: 1,
      snapshot: json,
      etag: '"e"',
      revision: 7,
      ab: { userId: 'u', attributes: {}, results: { x: true } },
    });
    expect(read.snapshot.configs.get('db.pool.max')).toBe(10);
    expect(read.snapshot.flags.get('new-checkout')?.isActive).toBe(true);
    expect(read.ab?.results).toEqual({ x: true });
  });

  it.each([
    [{ v: 2 }, 'bootstrap: expected v: 1'],
    [{ v: 1, snapshot: wire, etag: null, revision: 7 }, 'bootstrap.snapshot.secrets'],
    [
      { v: 1, snapshot: { ...wire, secrets: undefined, revision: -1 }, etag: null, revision: -1 },
      'bootstrap.snapshot: $.revision',
    ],
    [{ v: 1, snapshot: { ...wire, secrets: undefined }, etag: 5, revision: 7 }, 'bootstrap.etag'],
    [{ v: 1, snapshot: { ...wire, secrets: undefined }, etag: null, revision: 8 }, 'bootstrap.revision'],
    [
      {
        v: 1,
        snapshot: { ...wire, secrets: undefined },
        etag: null,
        revision: 7,
        ab: { userId: 'u', results: { x: 'yes' } },
      },
      'bootstrap.ab.results["x"]',
    ],
  ])('refuses a malformed bootstrap, naming the member (%#)', (doc, message) => {
    expect(() => readBootstrap(doc)).toThrow(InvalidArgumentError);
    expect(() => readBootstrap(doc)).toThrow(message);
  });

  it('reads the state and the A/B answers apart: the state leaves `ab` unread, readBootstrapAb checks it', () => {
    const malformedAb = {
      v: 1,
      snapshot: { ...wire, secrets: undefined },
      etag: null,
      revision: 7,
      ab: { userId: 7, results: {} },
    };
    expect(readBootstrapState(malformedAb).snapshot.revision).toBe(7);
    expect(() => readBootstrapAb(malformedAb)).toThrow('bootstrap.ab: expected an object with a string userId');
    expect(readBootstrapAb({ ...malformedAb, ab: undefined })).toBeUndefined();
    // The state keeps every refusal of the whole: secrets, a wrong revision.
    expect(() => readBootstrapState({ ...malformedAb, snapshot: wire })).toThrow('bootstrap.snapshot.secrets');
    expect(() => readBootstrapState({ ...malformedAb, revision: 8 })).toThrow('bootstrap.revision');
  });

  it('holds plain objects only (Next.js refuses null-prototype props), a key named __proto__ as an own member', () => {
    const doc = JSON.parse(
      '{"service":{"slug":"shop","kind":"frontend"},"revision":3,' +
        '"configs":{"__proto__":["a"],"plain":2},' +
        '"flags":{"__proto__":{"is_enabled":true,"starts_at":null,"ends_at":null,"is_active":true}}}',
    ) as unknown;
    const json = publicSnapshotJson(parseSnapshot(doc));
    for (const member of [json, json.configs, json.flags, json.flags['__proto__']])
      expect(Object.getPrototypeOf(member)).toBe(Object.prototype);
    expect(Object.keys(json.configs)).toEqual(['__proto__', 'plain']);
    expect(Object.getOwnPropertyDescriptor(json.configs, '__proto__')?.value).toEqual(['a']);
    expect(Object.getOwnPropertyDescriptor(json.flags, '__proto__')?.value).toMatchObject({ is_active: true });
    // Through JSON and back (the page's embedded bootstrap), the same members.
    expect(JSON.parse(JSON.stringify(json))).toEqual(doc);
    const read = readBootstrap({
      v: 1,
      snapshot: json,
      etag: null,
      revision: 3,
      ab: JSON.parse('{"userId":"u","attributes":{"__proto__":"x"},"results":{"__proto__":true}}') as unknown,
    });
    for (const member of [read.ab!.attributes, read.ab!.results])
      expect(Object.getPrototypeOf(member)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(read.ab!.attributes, '__proto__')?.value).toBe('x');
    expect(Object.getOwnPropertyDescriptor(read.ab!.results, '__proto__')?.value).toBe(true);
  });
});
