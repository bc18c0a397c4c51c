import fc from 'fast-check';
import {
  applyPatch,
  decidePatch,
  parsePatch,
  parsePublicSnapshot,
  parseSnapshot,
  SnapshotFormatError,
  type Snapshot,
} from './snapshot.js';

const doc = {
  service: { slug: 'shop', kind: 'backend' },
  revision: 42,
  configs: {
    'db.host': 'db.internal',
    'db.pool.max': 20,
    'pricing.discount': 0.15,
    'maintenance.enabled': false,
    'cors.origins': ['https://a.example'],
    'banner.text': null,
  },
  flags: { 'new-checkout': { is_enabled: true, starts_at: '2026-11-01T00:00:00Z', ends_at: null, is_active: true } },
  secrets: {
    'stripe.api_key': { type: 'text', value: 'rk_live_x', version: 3 },
    'tls.client_pem': { type: 'file', value: '-----BEGIN CERTIFICATE-----\n...', version: 1 },
  },
};

/** A plain, comparable view of a snapshot. */
export function plain(s: Snapshot): unknown {
  const sorted = <T>(m: ReadonlyMap<string, T>) =>
    Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    service: s.service,
    revision: s.revision,
    configs: sorted(s.configs),
    flags: sorted(s.flags),
    secrets: sorted(s.secrets),
  };
}

describe('parseSnapshot', () => {
  it('reads the PROTOCOL §5 example, keeping JSON types', () => {
    const s = parseSnapshot(doc);
    expect(s.revision).toBe(42);
    expect(s.service).toEqual({ slug: 'shop', kind: 'backend' });
    expect(s.configs.get('db.pool.max')).toBe(20);
    expect(s.configs.get('pricing.discount')).toBe(0.15);
    expect(s.configs.get('maintenance.enabled')).toBe(false);
    expect(s.configs.get('banner.text')).toBeNull();
    expect(s.configs.get('cors.origins')).toEqual(['https://a.example']);
    expect(s.flags.get('new-checkout')).toEqual({
      isEnabled: true,
      isActive: true,
      startsAt: '2026-11-01T00:00:00Z',
      endsAt: null,
    });
    expect(s.secrets.get('tls.client_pem')?.type).toBe('file');
  });

  it('freezes array values so readers cannot change the cache', () => {
    const arr = parseSnapshot(doc).configs.get('cors.origins') as string[];
    expect(Object.isFrozen(arr)).toBe(true);
  });

  it('accepts a value nested 100 levels deep (frozen throughout) and refuses 101, whatever the depth sent', () => {
    // Arrays and objects in turn, `levels` deep (`[]` is 1), an array outside.
    const nest = (levels: number): unknown[] => {
      let v: unknown = [];
      for (let i = 2; i < levels; i++) v = i % 2 ? [v] : { in: v };
      return [v];
    };
    const ok = parseSnapshot({ ...doc, configs: { deep: nest(100) } }).configs.get('deep');
    let inner: unknown = ok;
    while (Array.isArray(inner) || (typeof inner === 'object' && inner !== null)) {
      expect(Object.isFrozen(inner)).toBe(true);
      inner = Object.values(inner as object)[0];
    }
    expect(() => parseSnapshot({ ...doc, configs: { deep: nest(101) } })).toThrow('$.configs["deep"]: nested deeper');
    expect(() => parseSnapshot({ ...doc, configs: { deep: nest(200_000) } })).toThrow(SnapshotFormatError);
  });

  it('parsePublicSnapshot reads no secrets', () => {
    const s = parsePublicSnapshot({ ...doc, secrets: { s: { type: 'text', value: 7 } } });
    expect([s.secrets.size, s.configs.size]).toEqual([0, parseSnapshot(doc).configs.size]);
  });

  it('accepts a snapshot without secrets (public key)', () => {
    const { secrets: _omit, ...rest } = doc;
    expect(parseSnapshot(rest).secrets.size).toBe(0);
  });

  it.each([
    [{ ...doc, revision: -1 }, '$.revision'],
    [{ ...doc, revision: '42' }, '$.revision'],
    [{ ...doc, service: { slug: 'shop' } }, '$.service.kind'],
    [{ ...doc, configs: { 'a.b': { nested: true } } }, '$.configs["a.b"]: objects are not config values'],
    [{ ...doc, configs: { n: Infinity } }, '$.configs["n"]: expected a JSON value, got number'],
    [{ ...doc, configs: { u: undefined } }, '$.configs["u"]: expected a JSON value, got undefined'],
    [{ ...doc, flags: { f: { is_enabled: true, is_active: 'yes' } } }, '$.flags["f"].is_active'],
    [{ ...doc, secrets: { s: { type: 'text', value: 5, version: 1 } } }, '$.secrets["s"].value'],
    [{ ...doc, secrets: { s: { type: 'text', value: 'v', version: 0 } } }, '$.secrets["s"].version'],
    [[], '$'],
  ])('refuses a malformed document, naming the path (%#)', (bad, path) => {
    expect(() => parseSnapshot(bad)).toThrow(SnapshotFormatError);
    expect(() => parseSnapshot(bad)).toThrow(path);
  });

  it('never echoes a secret value in a format error', () => {
    const bad = { ...doc, secrets: { s: { type: 'text', value: 'TOPSECRET', version: 'x' } } };
    expect(() => parseSnapshot(bad)).toThrow(/^(?!.*TOPSECRET)/);
  });
});

describe('patches', () => {
  const base = parseSnapshot(doc);

  it('sets and deletes exactly the keys named, sharing untouched groups', () => {
    const patch = parsePatch({
      base: 42,
      revision: 43,
      configs: { 'db.pool.max': 30 },
      deleted: { configs: ['banner.text'] },
    });
    const next = applyPatch(base, patch);
    expect(next.revision).toBe(43);
    expect(next.configs.get('db.pool.max')).toBe(30);
    expect(next.configs.has('banner.text')).toBe(false);
    expect(next.flags).toBe(base.flags);
    expect(base.configs.get('db.pool.max')).toBe(20);
  });

  it('decides: apply on matching base, stale when not ahead, else resync', () => {
    const p = (b: number, r: number) => parsePatch({ base: b, revision: r });
    expect(decidePatch(base, p(42, 43))).toBe('apply');
    expect(decidePatch(base, p(41, 42))).toBe('stale');
    expect(decidePatch(base, p(43, 44))).toBe('resync');
  });

  it('refuses a malformed patch as a whole', () => {
    expect(() => parsePatch({ base: 1, revision: 2, configs: { ok: 1, bad: {} } })).toThrow(SnapshotFormatError);
    expect(() => parsePatch({ base: 1, revision: 2, deleted: { configs: [1] } })).toThrow('$.deleted.configs[0]');
    expect(() => parsePatch({ revision: 2 })).toThrow('$.base');
  });
});

// ---------------------------------------------------------------- property: patches + resyncs ≡ one fresh sync

type ServerState = {
  kind: string;
  configs: Map<string, unknown>;
  flags: Map<string, { is_enabled: boolean; starts_at: null; ends_at: null; is_active: boolean }>;
  secrets: Map<string, { type: 'text' | 'file'; value: string; version: number }>;
};

const keyArb = fc.constantFrom('a', 'b', 'c.d', 'e-f', 'g_h');
const configValueArb = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
);
const opArb = fc.oneof(
  fc.record({ op: fc.constant('setConfig' as const), key: keyArb, value: configValueArb }),
  fc.record({ op: fc.constant('deleteConfig' as const), key: keyArb }),
  fc.record({ op: fc.constant('setFlag' as const), key: keyArb, on: fc.boolean() }),
  fc.record({ op: fc.constant('deleteFlag' as const), key: keyArb }),
  fc.record({ op: fc.constant('setSecret' as const), key: keyArb, value: fc.string(), file: fc.boolean() }),
  fc.record({ op: fc.constant('deleteSecret' as const), key: keyArb }),
  fc.record({ op: fc.constant('setKind' as const), kind: fc.constantFrom('backend', 'worker') }),
);
/** What the stream does with each server change, and whether a resync event follows it. */
const deliveryArb = fc.record({
  fate: fc.constantFrom('deliver', 'deliver', 'deliver', 'drop', 'duplicate'),
  resyncAfter: fc.boolean(),
});

function render(state: ServerState, revision: number): unknown {
  return {
    service: { slug: 'shop', kind: state.kind },
    revision,
    configs: Object.fromEntries(state.configs),
    flags: Object.fromEntries(state.flags),
    secrets: Object.fromEntries(state.secrets),
  };
}

describe('property: any sequence of patches and resyncs ends in the cache of one fresh sync', () => {
  it('holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(opArb, deliveryArb), { maxLength: 40 }),
        fc.integer({ min: 0, max: 5 }),
        (steps, initialRevision) => {
          const server: ServerState = { kind: 'backend', configs: new Map(), flags: new Map(), secrets: new Map() };
          let revision = initialRevision;
          let cache = parseSnapshot(render(server, revision));
          const fetchFresh = () => parseSnapshot(JSON.parse(JSON.stringify(render(server, revision))));
          const onPatch = (data: unknown) => {
            const patch = parsePatch(JSON.parse(JSON.stringify(data)));
            const decision = decidePatch(cache, patch);
            if (decision === 'apply') cache = applyPatch(cache, patch);
            else if (decision === 'resync') cache = fetchFresh();
          };
          const onResync = (r: number) => {
            if (r !== cache.revision) cache = fetchFresh();
          };
          for (const [op, delivery] of steps) {
            const patch: Record<string, unknown> = { base: revision, revision: revision + 1 };
            const deleted: Record<string, string[]> = {};
            switch (op.op) {
              case 'setConfig':
                server.configs.set(op.key, op.value);
                patch['configs'] = { [op.key]: op.value };
                break;
              case 'deleteConfig':
                server.configs.delete(op.key);
                deleted['configs'] = [op.key];
                break;
              case 'setFlag': {
                const f = { is_enabled: op.on, starts_at: null, ends_at: null, is_active: op.on };
                server.flags.set(op.key, f);
                patch['flags'] = { [op.key]: f };
                break;
              }
              case 'deleteFlag':
                server.flags.delete(op.key);
                deleted['flags'] = [op.key];
                break;
              case 'setSecret': {
                const s = {
                  type: op.file ? ('file' as const) : ('text' as const),
                  value: op.value,
                  version: (server.secrets.get(op.key)?.version ?? 0) + 1,
                };
                server.secrets.set(op.key, s);
                patch['secrets'] = { [op.key]: s };
                break;
              }
              case 'deleteSecret':
                server.secrets.delete(op.key);
                deleted['secrets'] = [op.key];
                break;
              case 'setKind':
                server.kind = op.kind;
                patch['service'] = { slug: 'shop', kind: op.kind };
                break;
            }
            if (Object.keys(deleted).length > 0) patch['deleted'] = deleted;
            revision += 1;
            if (delivery.fate !== 'drop') onPatch(patch);
            if (delivery.fate === 'duplicate') onPatch(patch);
            if (delivery.resyncAfter) onResync(revision);
          }
          // A reconnect ends every stream story: the server sends resync with its revision.
          onResync(revision);
          expect(plain(cache)).toEqual(plain(fetchFresh()));
        },
      ),
      { numRuns: 500 },
    );
  });
});
