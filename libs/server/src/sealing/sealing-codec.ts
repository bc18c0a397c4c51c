/**
 * Sealing at the persistence boundary: what a store backend (the file
 * journal and state file, a database table) writes goes through here, and
 * what it reads comes back through here. In memory the server keeps secret
 * values in plaintext (it serves them); on disk every secret version is
 * AES-256-GCM under its service's data key, and each data key is wrapped by
 * a root key. The associated data binds a sealed value to its service, key,
 * version and data key, and a wrapped key to its service and id.
 */
import { randomBytes } from 'node:crypto';
import type { DataKeyRecord, JsonValue, SecretVersion, ServerData } from '../domain/model.js';
import { applyStateChange, type StateChange } from '../domain/state-change.js';
import { ivKeyOf, openBytes, sealBytes, type IvKey } from './aead.js';
import { Keyring, type RootKey } from './keyring.js';
import { RootKeyMissingError } from './root-key-missing-error.js';
import { SealedDataError } from './sealed-data-error.js';

/** A secret value as stored: `<data key id>.<iv|tag|ciphertext, base64url>`. */
export interface SealedValue {
  readonly sealed: string;
}

type SecretVersionChange = Extract<StateChange, { type: 'secret.version' }>;

/** A secret version record as stored: its value sealed. */
export type SealedSecretVersionChange = Omit<SecretVersionChange, 'version'> & {
  readonly version: Omit<SecretVersion, 'value'> & { readonly value: SealedValue };
};

/** Change stage 2: a {@link StateChange} as a store backend writes and reads it (secret values sealed). */
export type StoredChange = Exclude<StateChange, SecretVersionChange> | SealedSecretVersionChange | SecretVersionChange;

/** What the state form says about sealing (top-level `sealing`): its presence means values are sealed. */
export const SEALING_SCHEME = 'aes-256-gcm/1';

const DATA_KEY_BYTES = 32;

/** Options of a {@link SealingCodec}. */
export interface SealingCodecOptions {
  /** The time stamped on new data keys (ms since the epoch). @default Date.now */
  readonly now?: () => number;
  /**
   * Reads the keyring again from where it came from (a key file), or
   * undefined when it cannot (`VANE_ROOT_KEY`): tried when the data names a
   * root key this process does not hold, so a replica whose key file was
   * updated follows a rotation made on another replica without a restart.
   */
  readonly reloadKeyring?: () => Keyring | undefined;
  /**
   * Told when the data's root key (the last rotation's) is one this process
   * does not hold, even after a reload: its id, never a key.
   */
  readonly onRootKeyMissing?: (id: string) => void;
}

/**
 * Seals and opens changes and whole states with one keyring. Unwrapped data
 * keys are cached in memory by their wrapped form, so a rotation that
 * re-wraps a key is seen at once.
 */
export class SealingCodec {
  /**
   * The sealed form of each secret version object, with the data key that
   * sealed it: versions never change once made, and sealing is deterministic,
   * so a state rewritten under the same data key (a compaction, a root-key
   * rotation) reuses it instead of sealing every value again.
   */
  private readonly sealedVersions = new WeakMap<
    SecretVersion,
    { readonly dataKey: string; readonly sealed: SealedValue }
  >();
  /** Unwrapped data keys (and the key of their synthetic IVs) by their wrapped form. */
  private readonly unwrapped = new Map<string, { readonly key: Buffer; readonly ivKey: IvKey }>();

  /** The root key the data names (its last rotation's) when this process does not hold it. */
  private lacking: string | undefined;

  /**
   * @param keyring - the root keys; its primary wraps new data keys (until the data names another, see {@link followData}).
   */
  constructor(
    private keyringValue: Keyring,
    private readonly options: SealingCodecOptions = {},
  ) {}

  /** The root key id the data names that this process does not hold, if any (a rotation it cannot follow yet). */
  get missingRootKey(): string | undefined {
    return this.lacking;
  }

  /** The root keys in use. */
  get keyring(): Keyring {
    return this.keyringValue;
  }

  /**
   * The ids of the root keys this process holds or can read now (its key
   * file again, where it has one): what it tells its fleet, never a key.
   */
  heldRootKeyIds(): string[] {
    const ids = new Set(this.keyring.keys.map((key) => key.id));
    try {
      for (const key of this.options.reloadKeyring?.()?.keys ?? []) ids.add(key.id);
    } catch {
      // An unreadable key file holds nothing more; its error is logged where a rotation needs it.
    }
    return [...ids];
  }

  /** Makes `keyring` the one in use: its primary wraps from now on (see {@link rewrapDataKeys}). */
  useKeyring(keyring: Keyring): void {
    this.keyringValue = keyring;
    if (this.lacking !== undefined && keyring.get(this.lacking)) this.lacking = undefined;
  }

  /**
   * The records to store for `change`, in order: a new data key's record
   * first when its service has none yet (applied to `data` here, so later
   * changes use it), then the change with its secret value sealed.
   */
  sealChange(change: StateChange, data: ServerData): StoredChange[] {
    if (change.type !== 'secret.version') return [change];
    const added: StoredChange[] = [];
    let dataKey = data.services.get(change.slug)?.data_keys.at(-1);
    if (!dataKey) {
      const record = this.newDataKeyChange(change.slug, data);
      added.push(record);
      dataKey = record.data_key;
    }
    const value = this.sealValue(change.slug, change.key, change.version.version, change.version.value, dataKey);
    // The store's version object is the data's own: the next state written reuses this.
    this.sealedVersions.set(change.version, { dataKey: dataKey.id, sealed: value });
    const sealed: SealedSecretVersionChange = { ...change, version: { ...change.version, value } };
    return [...added, sealed];
  }

  /**
   * The change a stored record holds, its secret value opened with the data
   * keys `data` holds now (a replay applies the records before it first).
   *
   * @throws RootKeyMissingError, SealedDataError.
   */
  openChange(stored: StoredChange, data: ServerData): StateChange {
    if (stored.type === 'root_key') this.adopt(stored.root_key);
    if (stored.type === 'data_key') this.carryOver(stored.slug, stored.data_key, data);
    if (stored.type !== 'secret.version' || typeof stored.version.value === 'string') return stored as StateChange;
    const keys = data.services.get(stored.slug)?.data_keys ?? [];
    const value = this.openValue(stored.slug, stored.key, stored.version.version, stored.version.value, keys);
    return { ...stored, version: { ...stored.version, value } };
  }

  /**
   * Seals the state form of `data` in place: every secret value, with its
   * service's newest data key (a service with secrets and no data key gets
   * one, in `data` too, so the state file carries it).
   */
  sealState(state: { [key: string]: JsonValue }, data: ServerData): void {
    state['sealing'] = SEALING_SCHEME;
    const services = state['services'] as { [slug: string]: { [member: string]: JsonValue } };
    for (const [slug, service] of data.services) {
      if (service.secrets.size === 0) continue;
      let dataKey = service.data_keys.at(-1);
      if (!dataKey) dataKey = this.newDataKeyChange(slug, data).data_key;
      const json = services[slug]!;
      json['data_keys'] = service.data_keys.map((k) => ({ ...k }));
      const secrets = json['secrets'] as { [key: string]: { versions: Array<{ [member: string]: JsonValue }> } };
      // The state form lists each secret's versions in the data's order.
      for (const [key, record] of service.secrets) {
        const versions = secrets[key]!.versions;
        record.versions.forEach((version, index) => {
          let sealed = this.sealedVersions.get(version);
          if (sealed?.dataKey !== dataKey.id) {
            sealed = {
              dataKey: dataKey.id,
              sealed: this.sealValue(slug, key, version.version, version.value, dataKey),
            };
            this.sealedVersions.set(version, sealed);
          }
          versions[index]!['value'] = sealed.sealed as unknown as JsonValue;
        });
      }
    }
  }

  /**
   * Opens a state read from a store, in place, before it is parsed: every
   * sealed secret value becomes its plaintext. A state without `sealing`
   * (written before sealing) is left as it is. Shapes it does not expect are
   * left for the parser to name.
   *
   * @throws RootKeyMissingError naming the root key ids the state needs and the keyring lacks, before anything is opened.
   * @throws SealedDataError for a value that does not open where it is.
   */
  openState(state: unknown): void {
    if (!isObject(state) || state['sealing'] === undefined) return;
    const services = isObject(state['services']) ? state['services'] : {};
    const missing = new Set<string>();
    for (const service of Object.values(services)) {
      if (!isObject(service) || !Array.isArray(service['data_keys'])) continue;
      for (const key of service['data_keys'] as DataKeyRecord[]) {
        if (isObject(key) && typeof key.root_key === 'string' && !this.keyring.get(key.root_key)) {
          missing.add(key.root_key);
        }
      }
    }
    if (missing.size > 0) throw missingKeyError([...missing]);
    for (const [slug, service] of Object.entries(services)) {
      if (!isObject(service) || !isObject(service['secrets'])) continue;
      const keys = Array.isArray(service['data_keys']) ? (service['data_keys'] as DataKeyRecord[]) : [];
      for (const [key, secret] of Object.entries(service['secrets'])) {
        if (!isObject(secret) || !Array.isArray(secret['versions'])) continue;
        for (const version of secret['versions'] as unknown[]) {
          if (!isObject(version) || !isObject(version['value']) || typeof version['version'] !== 'number') continue;
          version['value'] = this.openValue(
            slug,
            key,
            version['version'],
            version['value'] as unknown as SealedValue,
            keys,
          );
        }
      }
    }
  }

  /**
   * Makes the root key the data names (that of its last rotation, from the
   * audit) the one that wraps new data keys, when this process holds it: a
   * replica or a restart whose keyring lists the old key first still wraps
   * with the key the fleet rotated to. Data with no rotation leaves the
   * keyring's own order.
   */
  followData(data: ServerData): void {
    for (let i = data.audit.length - 1; i >= 0; i--) {
      const entry = data.audit[i]!;
      if (entry.action === 'root_key.rotate' && entry.key !== null) {
        this.adopt(entry.key);
        return;
      }
    }
  }

  /**
   * Root-key rotation: every data key not wrapped by the keyring's primary
   * (with `all`, every data key), wrapped again by it. Applied to `data`;
   * returns the records to store. Secret values are not touched: they stay
   * sealed by the same data keys. Wrapping is deterministic, so a key wrapped
   * by the primary already is recorded with the bytes it has.
   */
  rewrapDataKeys(data: ServerData, options: { all?: boolean } = {}): Array<Extract<StateChange, { type: 'data_key' }>> {
    const changes: Array<Extract<StateChange, { type: 'data_key' }>> = [];
    const primary = this.keyring.primary;
    for (const [slug, service] of data.services) {
      for (const dataKey of service.data_keys) {
        if (dataKey.root_key === primary.id && !options.all) continue;
        const unwrapped = this.unwrap(slug, dataKey);
        const change = {
          type: 'data_key' as const,
          slug,
          data_key: { ...dataKey, root_key: primary.id, wrapped: this.wrap(slug, dataKey.id, unwrapped.key) },
        };
        this.unwrapped.set(change.data_key.wrapped, unwrapped);
        applyStateChange(data, change);
        changes.push(change);
      }
    }
    return changes;
  }

  /**
   * `dataKey` (a record as stored, of `slug`) wrapped by the keyring's
   * primary instead: the same data key, so what it sealed still opens. For
   * rewriting stored history after a rotation; the record itself when the
   * primary already wraps it.
   *
   * @throws RootKeyMissingError when the keyring lacks the key that wraps it, SealedDataError when it does not open.
   */
  rewrapped(slug: string, dataKey: DataKeyRecord): DataKeyRecord {
    const primary = this.keyring.primary;
    if (dataKey.root_key === primary.id) return dataKey;
    const plain = openBytes(this.requireRoot(dataKey.root_key).key, dataKey.wrapped, keyAad(slug, dataKey.id));
    if (!plain)
      throw new SealedDataError(`service "${slug}": data key ${dataKey.id} does not open (changed, or moved)`);
    return { ...dataKey, root_key: primary.id, wrapped: this.wrap(slug, dataKey.id, plain) };
  }

  /** Data-key rotation: a new data key for the service, which seals from now on. Applied to `data`. */
  newDataKeyChange(slug: string, data: ServerData): Extract<StateChange, { type: 'data_key' }> {
    const service = data.services.get(slug)!;
    const id = `dk${service.data_keys.length + 1}`;
    const plain = randomBytes(DATA_KEY_BYTES);
    const dataKey: DataKeyRecord = {
      id,
      root_key: this.keyring.primary.id,
      wrapped: this.wrap(slug, id, plain),
      created_at: new Date((this.options.now ?? Date.now)()).toISOString(),
    };
    this.unwrapped.set(dataKey.wrapped, { key: plain, ivKey: ivKeyOf(plain) });
    const change = { type: 'data_key' as const, slug, data_key: dataKey };
    applyStateChange(data, change);
    return change;
  }

  /** The root key ids `data`'s data keys need that the keyring lacks. */
  missingRootKeys(data: ServerData): string[] {
    const missing = new Set<string>();
    for (const service of data.services.values()) {
      for (const key of service.data_keys) if (!this.keyring.get(key.root_key)) missing.add(key.root_key);
    }
    return [...missing];
  }

  private sealValue(slug: string, key: string, version: number, value: string, dataKey: DataKeyRecord): SealedValue {
    const aad = valueAad(slug, key, version, dataKey.id);
    const { key: sealing, ivKey } = this.unwrap(slug, dataKey);
    return { sealed: `${dataKey.id}.${sealBytes(sealing, Buffer.from(value, 'utf8'), aad, ivKey)}` };
  }

  private openValue(
    slug: string,
    key: string,
    version: number,
    value: SealedValue,
    keys: readonly DataKeyRecord[],
  ): string {
    const where = `service "${slug}", secret "${key}", version ${version}`;
    const text = typeof value.sealed === 'string' ? value.sealed : '';
    const dot = text.indexOf('.');
    const dataKey = keys.find((k) => k.id === text.slice(0, dot));
    if (dot === -1 || !dataKey) throw new SealedDataError(`${where}: sealed by a data key the service does not hold`);
    const plain = openBytes(
      this.unwrap(slug, dataKey).key,
      text.slice(dot + 1),
      valueAad(slug, key, version, dataKey.id),
    );
    if (!plain)
      throw new SealedDataError(`${where}: the sealed value does not open here (changed, or moved from elsewhere)`);
    return plain.toString('utf8');
  }

  private wrap(slug: string, id: string, plain: Buffer): string {
    return sealBytes(this.keyring.primary.key, plain, keyAad(slug, id));
  }

  private unwrap(slug: string, dataKey: DataKeyRecord): { readonly key: Buffer; readonly ivKey: IvKey } {
    const cached = this.unwrapped.get(dataKey.wrapped);
    if (cached) return cached;
    const plain = openBytes(this.requireRoot(dataKey.root_key).key, dataKey.wrapped, keyAad(slug, dataKey.id));
    if (!plain)
      throw new SealedDataError(`service "${slug}": data key ${dataKey.id} does not open (changed, or moved)`);
    const entry = { key: plain, ivKey: ivKeyOf(plain) };
    this.unwrapped.set(dataKey.wrapped, entry);
    return entry;
  }

  /** The root key of this id; a key file read again first when the keyring lacks it. */
  private requireRoot(id: string): RootKey {
    const root = this.keyring.get(id) ?? this.reload(id);
    if (!root) throw missingKeyError([id]);
    return root;
  }

  /** The keys of the reloaded keyring added (behind those held), if it holds `id`; else nothing changes. */
  private reload(id: string): RootKey | undefined {
    const reloaded = this.options.reloadKeyring?.();
    const found = reloaded?.get(id);
    if (!reloaded || !found) return undefined;
    this.keyringValue = new Keyring([
      ...this.keyring.keys,
      ...reloaded.keys.filter((k) => this.keyring.get(k.id) === undefined),
    ]);
    return found;
  }

  /** The data's root key is now `id`: it wraps new data keys here if this process holds it (or can read it). */
  private adopt(id: string): void {
    let root: RootKey | undefined;
    try {
      root = this.keyring.get(id) ?? this.reload(id);
    } catch {
      // A key file that cannot be read now is as good as one without the key: said below, retried at the next rotation.
      root = undefined;
    }
    if (!root) {
      // New data keys stay wrapped by a key every replica still holds; the next rotation re-wraps them.
      if (this.lacking !== id) this.options.onRootKeyMissing?.(id);
      this.lacking = id;
      return;
    }
    this.lacking = undefined;
    if (this.keyring.primary.id !== id) this.keyringValue = this.keyring.withPrimary(root);
  }

  /**
   * A stored record re-wrapping a data key this process already opened (a
   * rotation made elsewhere): the opened key serves under its new wrapping
   * too, so a replica that does not hold the new root key yet keeps sealing
   * and opening with the data keys it has.
   */
  private carryOver(slug: string, dataKey: DataKeyRecord, data: ServerData): void {
    // Only a key with this id that this data holds is the same key (a service made again starts its ids over).
    const current = data.services.get(slug)?.data_keys.find((k) => k.id === dataKey.id);
    const opened = current && this.unwrapped.get(current.wrapped);
    if (opened && !this.unwrapped.has(dataKey.wrapped)) this.unwrapped.set(dataKey.wrapped, opened);
  }
}

/** The one-line refusal naming the root keys the data needs. */
export function missingKeyError(ids: readonly string[]): RootKeyMissingError {
  return new RootKeyMissingError(
    `the data is sealed by root key ${ids.join(', ')}, which was not given: ` +
      'set VANE_ROOT_KEY or --root-key-file to a keyring holding it (nothing was changed)',
    ids,
  );
}

function valueAad(slug: string, key: string, version: number, dataKeyId: string): string {
  return `vane/secret\u0000${slug}\u0000${key}\u0000${version}\u0000${dataKeyId}`;
}

function keyAad(slug: string, id: string): string {
  return `vane/data-key\u0000${slug}\u0000${id}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
