import { parseSnapshot, type Snapshot } from '@vane/client-core';
import { BACKUP_FORMAT, decodeBackup, encodeBackup, type BackupIdentity } from './backup-document.js';
import { deriveBackupKey } from './backup-key.js';
import { UnusableBackupError } from './unusable-backup-error.js';

const SERVICE = 'https://shop.vane.example';
const API_KEY = 'svs_shop_backup_spec_key_0000001';
const SECRET = 'rk_live_BACKUP_SPEC_SECRET';
const PEM = '-----BEGIN CERTIFICATE-----\nBACKUP-PEM\n-----END CERTIFICATE-----\n';
const SAVED_AT = Date.parse('2026-11-23T10:00:00Z');

function snapshot(withSecrets = true): Snapshot {
  return parseSnapshot({
    service: { slug: 'shop', kind: 'backend' },
    revision: 42,
    configs: {
      'db.host': 'db.internal',
      'db.pool.max': 20,
      'cors.origins': ['https://a.example'],
      'banner.text': null,
    },
    flags: { 'new-checkout': { is_enabled: true, starts_at: '2026-11-01T00:00:00Z', ends_at: null, is_active: true } },
    secrets: withSecrets
      ? {
          'stripe.api_key': { type: 'text', value: SECRET, version: 3 },
          'tls.pem': { type: 'file', value: PEM, version: 1 },
        }
      : undefined,
  });
}

const sealed: BackupIdentity = { serviceId: SERVICE, key: deriveBackupKey(API_KEY, 'api-key', SERVICE) };
const keyless: BackupIdentity = { serviceId: SERVICE, key: undefined };

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UnusableBackupError);
    return (err as Error).message;
  }
  throw new Error('expected an UnusableBackupError');
}

function edit(text: string, change: (doc: Record<string, any>) => void): string {
  const doc = JSON.parse(text) as Record<string, any>;
  change(doc);
  return JSON.stringify(doc);
}

describe('backup document', () => {
  it('round-trips a snapshot, secrets sealed with a key derived from the API key', () => {
    const text = encodeBackup(snapshot(), SAVED_AT, sealed);
    const back = decodeBackup(text, sealed);
    expect(back.savedAtMs).toBe(SAVED_AT);
    expect(back.secrets).toBe('sealed');
    expect(back.snapshot.revision).toBe(42);
    expect(back.snapshot.service).toEqual({ slug: 'shop', kind: 'backend' });
    expect(back.snapshot.configs).toEqual(snapshot().configs);
    expect(back.snapshot.flags).toEqual(snapshot().flags);
    expect(back.snapshot.secrets).toEqual(snapshot().secrets);
  });

  it('holds no plaintext secret and no key: only names, the revision and the configs are readable', () => {
    const text = encodeBackup(snapshot(), SAVED_AT, sealed);
    for (const forbidden of [
      SECRET,
      'BACKUP-PEM',
      API_KEY,
      API_KEY.slice(4),
      sealed.key!.key.toString('base64'),
      sealed.key!.key.toString('hex'),
    ])
      expect(text).not.toContain(forbidden);
    const doc = JSON.parse(text) as Record<string, any>;
    expect(doc['format']).toBe(BACKUP_FORMAT);
    expect(doc['secrets']).toBe('sealed');
    expect(doc['seal'].key_source).toBe('api-key');
    expect(doc['snapshot'].configs['db.host']).toBe('db.internal');
    expect(doc['snapshot'].secrets).toBeUndefined();
  });

  it('seals afresh every time (a new nonce): two saves of one snapshot differ', () => {
    expect(encodeBackup(snapshot(), SAVED_AT, sealed)).not.toBe(encodeBackup(snapshot(), SAVED_AT, sealed));
  });

  it('without a key leaves the secrets out (workload identity, no encryptionKey)', () => {
    const text = encodeBackup(snapshot(), SAVED_AT, keyless);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('BACKUP-PEM');
    const back = decodeBackup(text, keyless);
    expect(back.secrets).toBe('omitted');
    expect(back.snapshot.secrets.size).toBe(0);
    expect(back.snapshot.configs.get('db.host')).toBe('db.internal');
    expect(decodeBackup(encodeBackup(snapshot(false), SAVED_AT, keyless), keyless).secrets).toBe('none');
  });

  it('a config named __proto__ survives the round trip', () => {
    const snap = parseSnapshot(
      JSON.parse('{"service":{"slug":"s","kind":"backend"},"revision":1,"configs":{"__proto__":7}}'),
    );
    expect(decodeBackup(encodeBackup(snap, SAVED_AT, sealed), sealed).snapshot.configs.get('__proto__')).toBe(7);
  });

  it('a flag and a secret named __proto__ survive the round trip', () => {
    const snap = parseSnapshot(
      JSON.parse(
        '{"service":{"slug":"s","kind":"backend"},"revision":1,' +
          '"flags":{"__proto__":{"is_enabled":true,"starts_at":null,"ends_at":null,"is_active":true}},' +
          '"secrets":{"__proto__":{"type":"text","value":"v","version":2}}}',
      ),
    );
    const back = decodeBackup(encodeBackup(snap, SAVED_AT, sealed), sealed).snapshot;
    expect(back.flags.get('__proto__')?.isActive).toBe(true);
    expect(back.secrets.get('__proto__')).toEqual({ type: 'text', value: 'v', version: 2 });
  });

  describe('refuses a bad backup, saying why', () => {
    const good = (): string => encodeBackup(snapshot(), SAVED_AT, sealed);

    it('a changed config (tampered: authentication fails)', () => {
      const text = edit(good(), (d) => (d['snapshot'].configs['db.host'] = 'evil.example'));
      expect(reason(() => decodeBackup(text, sealed))).toMatch(/authentication failed/);
    });

    it('a flipped bit in the ciphertext, a changed revision or saved_at', () => {
      const flip = edit(good(), (d) => {
        const bytes = Buffer.from(d['seal'].ciphertext as string, 'base64');
        bytes[0] ^= 1;
        d['seal'].ciphertext = bytes.toString('base64');
      });
      expect(reason(() => decodeBackup(flip, sealed))).toMatch(/authentication failed/);
      expect(
        reason(() =>
          decodeBackup(
            edit(good(), (d) => (d['snapshot'].revision = 99)),
            sealed,
          ),
        ),
      ).toMatch(/authentication failed/);
      expect(
        reason(() =>
          decodeBackup(
            edit(good(), (d) => (d['saved_at'] = new Date().toISOString())),
            sealed,
          ),
        ),
      ).toMatch(/authentication failed/);
    });

    it('a truncated document', () => {
      const text = good();
      expect(reason(() => decodeBackup(text.slice(0, text.length / 2), sealed))).toMatch(
        /not valid JSON \(\d+ characters; truncated\?\)/,
      );
    });

    it('unparseable JSON, quoting nothing of it', () => {
      const message = reason(() => decodeBackup(`{"format": ${SECRET}`, sealed));
      expect(message).toMatch(/not valid JSON/);
      expect(message).not.toContain(SECRET);
    });

    it('another service’s backup, even one sealed with the same key material', () => {
      const other: BackupIdentity = {
        serviceId: 'https://web.vane.example',
        key: deriveBackupKey(API_KEY, 'api-key', 'https://web.vane.example'),
      };
      const text = encodeBackup(snapshot(), SAVED_AT, other);
      expect(reason(() => decodeBackup(text, sealed))).toMatch(
        /belongs to another service \("https:\/\/web.vane.example"\)/,
      );
      // A document relabelled to this service does not open either: the key is bound to the service.
      const relabelled = edit(text, (d) => (d['service_id'] = SERVICE));
      expect(reason(() => decodeBackup(relabelled, sealed))).toMatch(/sealed with another key/);
    });

    it('a backup sealed with another key (a rotated API key)', () => {
      const rotated: BackupIdentity = {
        serviceId: SERVICE,
        key: deriveBackupKey('svs_shop_rotated_key_000000001', 'api-key', SERVICE),
      };
      expect(reason(() => decodeBackup(good(), rotated))).toMatch(/sealed with another key .*rotated/);
    });

    it('an unsealed backup when the reader has a key (no downgrade), and a sealed one when it has none', () => {
      expect(reason(() => decodeBackup(encodeBackup(snapshot(), SAVED_AT, keyless), sealed))).toMatch(/not sealed/);
      expect(reason(() => decodeBackup(good(), keyless))).toMatch(
        /this client has none \(give lastKnownGood.encryptionKey\)/,
      );
    });

    it('not a backup, a newer format, a malformed snapshot', () => {
      expect(reason(() => decodeBackup('{"hello":1}', sealed))).toMatch(/not a Vane last-known-good backup/);
      expect(
        reason(() =>
          decodeBackup(
            edit(good(), (d) => (d['version'] = 2)),
            sealed,
          ),
        ),
      ).toMatch(/newer client/);
      const malformed = edit(
        encodeBackup(snapshot(), SAVED_AT, keyless),
        (d) => (d['snapshot'].configs['x'] = { an: 'object' }),
      );
      expect(reason(() => decodeBackup(malformed, keyless))).toMatch(
        /malformed snapshot \(\$\.configs\["x"\]: objects are not config values/,
      );
      expect(
        reason(() =>
          decodeBackup(
            edit(good(), (d) => (d['saved_at'] = 'yesterday')),
            sealed,
          ),
        ),
      ).toMatch(/saved_at/);
    });
  });
});
