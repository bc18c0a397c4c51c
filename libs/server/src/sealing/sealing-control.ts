/**
 * The server's sealing operations while it serves: root-key rotation (the
 * data keys wrapped again, not every secret) and data-key rotation per
 * service (the secrets sealed again, in the background). Each is recorded
 * and audited as a change, so replicas and restarts see it.
 */
import type { ChangeLog } from '../domain/change-log.js';
import type { Store } from '../domain/store.js';
import { NotFoundError } from '../domain/not-found-error.js';
import { Keyring } from './keyring.js';
import type { SealingCodec } from './sealing-codec.js';
import { ValidationError } from '../validation/index.js';

/** What `GET /admin/v1/sealing` shows: key ids only, never a key. */
export interface SealingStatus {
  /** Whether anything is stored sealed (false for a memory store). */
  sealed: boolean;
  /** The root key that wraps data keys now. */
  root_key: string | null;
  /** Each service's data key that seals now, by slug. */
  data_keys: Record<string, string>;
}

/** Sealing operations on a running server. */
export class SealingControl {
  /**
   * @param codec - undefined for a memory store: nothing is stored, so nothing is sealed.
   * @param reloadKeyring - reads the keyring again from where it came from (a key file), if it can.
   */
  constructor(
    private readonly store: Store,
    private readonly changes: ChangeLog,
    private readonly codec: SealingCodec | undefined,
    private readonly reloadKeyring: () => Keyring | undefined,
  ) {}

  /** Which keys seal now. */
  status(): SealingStatus {
    const dataKeys: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const slug of this.store.slugs()) {
      const current = this.store.service(slug)!.data_keys.at(-1);
      if (current) dataKeys[slug] = current.id;
    }
    return { sealed: this.codec !== undefined, root_key: this.codec?.keyring.primary.id ?? null, data_keys: dataKeys };
  }

  /**
   * Makes `newKey` (base64 text), or else the first key of the reloaded
   * keyring, the root key: every data key is wrapped by it, recorded, and
   * the stored state rewritten, so the old key is no longer needed once this
   * resolves. The old key stays in the keyring of this process.
   *
   * @throws ValidationError for a key that is not one, or when there is no new key.
   */
  async rotateRootKey(newKey: string | undefined, actor: string): Promise<{ root_key: string; rewrapped: number }> {
    const codec = this.requireCodec();
    const source = newKey === undefined ? this.reloadKeyring() : Keyring.parse(newKey, 'root_key');
    if (!source) throw new ValidationError('root_key', 'required: this server reads its keys from no file to reload');
    const keyring = new Keyring([
      ...source.keys,
      ...codec.keyring.keys.filter((k) => !source.keys.some((s) => s.id === k.id)),
    ]);
    codec.useKeyring(keyring);
    const rewrapped = codec.rewrapDataKeys(this.store.data);
    for (const change of rewrapped) this.changes.record(change);
    const rootKey = keyring.primary.id;
    this.store.recordChange(
      { type: 'root_key', root_key: rootKey },
      { actor, action: 'root_key.rotate', service: null, key: rootKey, revision: null },
    );
    await this.changes.checkpoint?.();
    return { root_key: rootKey, rewrapped: rewrapped.length };
  }

  /**
   * Gives the service a new data key, which seals its secrets from now on;
   * the stored state is sealed again with it in the background (older data
   * keys stay, wrapped, for what they sealed until then).
   */
  rotateDataKey(slug: string, actor: string): { data_key: string } {
    const codec = this.requireCodec();
    this.store.requireService(slug);
    const change = codec.newDataKeyChange(slug, this.store.data);
    this.store.recordChange(change, {
      actor,
      action: 'data_key.rotate',
      service: slug,
      key: change.data_key.id,
      revision: null,
    });
    // The checkpoint's failure is the journal's own, reported through its error handler.
    this.changes.checkpoint?.().catch(() => undefined);
    return { data_key: change.data_key.id };
  }

  private requireCodec(): SealingCodec {
    if (!this.codec) throw new NotFoundError('this server stores nothing (a memory store): nothing is sealed');
    return this.codec;
  }
}
