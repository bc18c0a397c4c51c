import { applyStateChange, emptyService, type StateChange } from '../domain/state-change.js';
import { emptyAccessState, type ServerData } from '../domain/model.js';
import { Keyring } from './keyring.js';
import { RootKeyError } from './root-key-error.js';
import { RootKeyMissingError } from './root-key-missing-error.js';
import { SealedDataError } from './sealed-data-error.js';
import { SealingCodec, type SealedSecretVersionChange } from './sealing-codec.js';

function dataWith(...slugs: string[]): ServerData {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 60 },
    services: new Map(slugs.map((slug) => [slug, emptyService('backend')])),
    audit: [],
    projects: new Map([['default', { created_at: null }]]),
    tokens: new Map(),
    access: emptyAccessState(),
  };
}

const write = (slug: string, key: string, version: number, value: string): StateChange => ({
  type: 'secret.version',
  slug,
  key,
  secret_type: 'text',
  version: { version, value, created_at: '2026-11-27T12:00:00Z' },
  next_version: version + 1,
  revision: version + 1,
});

describe('SealingCodec', () => {
  const keyring = new Keyring([Keyring.generate().key]);

  it('seals a secret value (a data key record first for a new service) and opens it again', () => {
    const codec = new SealingCodec(keyring);
    const data = dataWith('shop');
    const stored = codec.sealChange(write('shop', 'db.password', 1, 'canary-1'), data);
    expect(stored.map((c) => c.type)).toEqual(['data_key', 'secret.version']);
    expect(JSON.stringify(stored)).not.toContain('canary-1');
    expect(data.services.get('shop')!.data_keys.map((k) => k.id)).toEqual(['dk1']);
    const opened = codec.openChange(stored[1]!, data);
    expect(opened).toEqual(write('shop', 'db.password', 1, 'canary-1'));
    // A second write reuses the data key.
    expect(codec.sealChange(write('shop', 'db.password', 2, 'canary-2'), data)).toHaveLength(1);
  });

  it.each([
    ['another key', { key: 'api.token' }],
    ['another version', { version: 2 }],
    ['another service', { slug: 'other' }],
  ])('refuses a ciphertext moved to %s', (_name, move) => {
    const codec = new SealingCodec(keyring);
    const data = dataWith('shop', 'other');
    codec.sealChange(write('other', 'x', 1, 'x'), data);
    const sealed = codec
      .sealChange(write('shop', 'db.password', 1, 'canary'), data)
      .at(-1) as SealedSecretVersionChange;
    const moved = {
      ...sealed,
      slug: 'slug' in move ? move.slug : sealed.slug,
      key: 'key' in move ? move.key : sealed.key,
      version: { ...sealed.version, version: 'version' in move ? move.version : sealed.version.version },
    };
    expect(() => codec.openChange(moved, data)).toThrow(SealedDataError);
  });

  it('opens with the old root key after a rotation re-wraps the data keys, and needs only the new one after', () => {
    const codec = new SealingCodec(keyring);
    const data = dataWith('shop');
    const sealed = codec.sealChange(write('shop', 'a', 1, 'before'), data).at(-1)!;
    const next = Keyring.generate().key;
    codec.useKeyring(new Keyring([next, ...keyring.keys]));
    expect(codec.rewrapDataKeys(data)).toHaveLength(1);
    expect(data.services.get('shop')!.data_keys[0]!.root_key).toBe(next.id);
    const fresh = new SealingCodec(new Keyring([next]));
    expect(fresh.openChange(sealed, data)).toMatchObject({ version: { value: 'before' } });
    expect(fresh.missingRootKeys(data)).toEqual([]);
    const stranger = new SealingCodec(new Keyring([Keyring.generate().key]));
    expect(() => stranger.openChange(sealed, data)).toThrow(RootKeyMissingError);
  });

  it('follows a rotation made elsewhere: the rotated key wraps from then on, read again from a key file if need be', () => {
    const next = Keyring.generate().key;
    const rotating = new SealingCodec(new Keyring([next, ...keyring.keys]));
    const data = dataWith('shop');
    const stored = rotating.sealChange(write('shop', 'a', 1, 'x'), data);
    // Another replica: the old key only, its key file holding the new one by the time the rotation arrives.
    let file = new Keyring(keyring.keys);
    const missing: string[] = [];
    const replica = new SealingCodec(file, { reloadKeyring: () => file, onRootKeyMissing: (id) => missing.push(id) });
    const applied = dataWith('shop');
    replica.openChange({ type: 'root_key', root_key: next.id }, applied);
    expect(missing).toEqual([next.id]);
    expect(replica.missingRootKey).toBe(next.id);
    file = new Keyring([next, ...keyring.keys]);
    replica.openChange({ type: 'root_key', root_key: next.id }, applied);
    expect(replica.missingRootKey).toBeUndefined();
    expect(replica.keyring.primary.id).toBe(next.id);
    const [dataKey, secret] = stored;
    applyStateChange(applied, replica.openChange(dataKey!, applied));
    expect(replica.openChange(secret!, applied)).toMatchObject({ version: { value: 'x' } });
  });

  it('keeps sealing with a data key it opened when a rotation re-wraps it under a root key it does not hold', () => {
    const data = dataWith('shop');
    const replica = new SealingCodec(keyring);
    replica.sealChange(write('shop', 'a', 1, 'x'), data);
    const next = Keyring.generate().key;
    const rotating = new SealingCodec(new Keyring([next, ...keyring.keys]));
    const elsewhere = structuredClone(data);
    const [rewrap] = rotating.rewrapDataKeys(elsewhere);
    replica.openChange(rewrap!, data);
    applyStateChange(data, rewrap!);
    const sealed = replica.sealChange(write('shop', 'a', 2, 'y'), data).at(-1)!;
    expect(new SealingCodec(new Keyring([next])).openChange(sealed, elsewhere)).toMatchObject({
      version: { value: 'y' },
    });
  });

  it('reads keyrings without ever quoting a key', () => {
    const { text } = Keyring.generate();
    const second = Keyring.generate().text;
    const ring = Keyring.parse(`# comment\n${text}\n\n${second}\n`, 'keys.txt');
    expect(ring.keys).toHaveLength(2);
    expect(Keyring.parse(`${text},${second}`, 'VANE_ROOT_KEY').keys).toHaveLength(2);
    const short = text.slice(0, 20);
    let error: unknown;
    try {
      Keyring.parse(`${text}\n${short}\n`, 'keys.txt');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RootKeyError);
    expect((error as Error).message).toBe(
      'keys.txt, line 2: a root key is 32 random bytes in base64 (openssl rand -base64 32)',
    );
    expect(() => Keyring.parse('# nothing\n', 'keys.txt')).toThrow('keys.txt: holds no root key');
  });
});
