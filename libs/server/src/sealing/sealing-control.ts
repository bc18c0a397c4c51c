/**
 * The server's sealing operations while it serves: root-key rotation (the
 * data keys wrapped again, not every secret) and data-key rotation per
 * service (the secrets sealed again, in the background). Each is a write
 * like any other, recorded and audited, so replicas and restarts see it: on
 * a fleet every replica applies the re-wrapped data keys and, holding the
 * new root key, wraps with it from then on (see SealingCodec.followData).
 */
import type { ChangeLog } from '../domain/change-log.js';
import type { Store } from '../domain/store.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { Keyring } from './keyring.js';
import type { SealingCodec } from './sealing-codec.js';
import { ValidationError } from '../validation/index.js';
import type { VaneServerLogger } from '../observability/logger.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../errors/store-errors.js';

/**
 * How long a committed rotation waits for the store to take its checkpoint
 * (the rewrite of what is stored), in ms: PostgreSQL restarting comes back
 * well within it. Past it the answer is 504, the rotation committed and the
 * rewrite not done: rotating to the same key again completes it.
 */
const CHECKPOINT_WAIT_MS = 30_000;
/** Between two tries of that checkpoint, in ms: the driver makes a lost connection again within a quarter second. */
const CHECKPOINT_RETRY_MS = 250;

/** What `GET /admin/v1/sealing` shows: key ids only, never a key. */
export interface SealingStatus {
  /** Whether anything is stored sealed (false for a memory store). */
  sealed: boolean;
  /** The root key that wraps data keys now. */
  root_key: string | null;
  /** Each service's data key that seals now, by slug. */
  data_keys: Record<string, string>;
  /** Root keys other than `root_key` that still wrap a data key here: empty once a rotation is complete. */
  other_root_keys: string[];
  /** The root key the data's last rotation names when this process does not hold it (add it to its keyring); else null. */
  missing_root_key: string | null;
}

/** Sealing operations on a running server. */
export class SealingControl {
  /**
   * @param codec - undefined for a memory store: nothing is stored, so nothing is sealed.
   * @param reloadKeyring - reads the keyring again from where it came from (a key file), if it can.
   * @param logger - where a checkpoint tried again after a rotation is said.
   */
  constructor(
    private readonly store: Store,
    private readonly changes: ChangeLog,
    private readonly codec: SealingCodec | undefined,
    private readonly reloadKeyring: () => Keyring | undefined,
    private readonly logger?: VaneServerLogger,
  ) {}

  /** Which keys seal now. */
  status(): SealingStatus {
    const dataKeys: Record<string, string> = Object.create(null) as Record<string, string>;
    const rootKey = this.codec?.keyring.primary.id ?? null;
    const others = new Set<string>();
    for (const slug of this.store.slugs()) {
      const keys = this.store.service(slug)!.data_keys;
      const current = keys.at(-1);
      if (current) dataKeys[slug] = current.id;
      for (const key of keys) if (key.root_key !== rootKey) others.add(key.root_key);
    }
    return {
      sealed: this.codec !== undefined,
      root_key: rootKey,
      data_keys: dataKeys,
      other_root_keys: [...others].sort(),
      missing_root_key: this.codec?.missingRootKey ?? null,
    };
  }

  /**
   * Makes `newKey` (base64 text), or else the first key of the reloaded
   * keyring, the root key: every data key is wrapped by it, as one write
   * committed like any other (on a fleet, after what other replicas
   * committed first, so a data key one of them just made is wrapped too),
   * then the stored state is rewritten, so nothing stored needs the old key
   * once this resolves. The old key stays in the keyring of this process.
   *
   * @throws ValidationError for a key that is not one, or when there is no new key.
   */
  async rotateRootKey(newKey: string | undefined, actor: string): Promise<{ root_key: string; rewrapped: number }> {
    const codec = this.requireCodec();
    const source = newKey === undefined ? this.reloadKeyring() : Keyring.parse(newKey, 'root_key');
    if (!source) throw new ValidationError('root_key', 'required: this server reads its keys from no file to reload');
    const before = codec.keyring.primary;
    const keyring = new Keyring([
      ...source.keys,
      ...codec.keyring.keys.filter((k) => !source.keys.some((s) => s.id === k.id)),
    ]);
    const rootKey = keyring.primary.id;
    let lacking: readonly string[];
    try {
      lacking = rootKey === before.id ? [] : ((await this.changes.replicasLacking?.(rootKey)) ?? []);
    } catch (error) {
      throw new StoreUnavailableError("the fleet's root keys could not be read; nothing was changed", { cause: error });
    }
    if (lacking.length > 0) {
      throw new ConflictError(
        `replica(s) ${lacking.join(', ')} do not hold root key ${rootKey}: add it to their keyring (key file or ` +
          `VANE_ROOT_KEY) first; each reports the keys it holds every check`,
      );
    }
    let rewrapped = 0;
    try {
      await this.changes.commit({
        // Nothing to save for an undo (cloning every service, on every try, would lose the race to other
        // replicas' writes on a large state): each run records every data key, whatever the data holds.
        slugs: [],
        // On a fleet this may run again, on a newer state, when another replica committed first.
        run: () => {
          codec.useKeyring(keyring);
          const changes = codec.rewrapDataKeys(this.store.data, { all: true });
          for (const change of changes) this.changes.record(change);
          rewrapped = changes.length;
          this.store.recordChange(
            { type: 'root_key', root_key: rootKey },
            { actor, action: 'root_key.rotate', service: null, key: rootKey, revision: null },
          );
        },
      });
    } catch (error) {
      // Not committed: the data keys in memory wrapped as stored again (the same bytes: wrapping is
      // deterministic), and new ones by the key the stored data names.
      codec.useKeyring(codec.keyring.withPrimary(before));
      codec.rewrapDataKeys(this.store.data);
      throw error;
    }
    // Committed: the rewrite of what is stored is tried again while the store is away (PostgreSQL stopped between
    // the commit and the rewrite), rather than answering an error for a rotation that took place.
    await this.checkpointAfterRotation(rootKey);
    return { root_key: rootKey, rewrapped };
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

  /**
   * The checkpoint of a committed rotation, tried every {@link CHECKPOINT_RETRY_MS} for up to
   * {@link CHECKPOINT_WAIT_MS}.
   *
   * @throws CommitOutcomeUnknownError when the store did not take it by then, or closed (the rotation stands).
   */
  private async checkpointAfterRotation(rootKey: string): Promise<void> {
    const checkpoint = this.changes.checkpoint?.bind(this.changes);
    if (checkpoint === undefined) return;
    const giveUpAt = performance.now() + CHECKPOINT_WAIT_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await checkpoint();
        return;
      } catch (error) {
        const message = (error as Error).message;
        // A StoreUnavailableError from a checkpoint is a store closed (the server stops): no use trying again.
        if (performance.now() >= giveUpAt || error instanceof StoreUnavailableError) {
          throw new CommitOutcomeUnknownError(
            `root key ${rootKey} is in use (the rotation is committed), but the stored state was not rewritten ` +
              `within ${CHECKPOINT_WAIT_MS / 1000} s (${message}): some of it still needs the old key; rotate to ` +
              `the same key again once the store answers`,
            { cause: error },
          );
        }
        this.logger?.warn(
          `the checkpoint after the rotation to root key ${rootKey} failed (try ${attempt}): ${message}; trying again`,
        );
        await new Promise<void>((resolve) => setTimeout(resolve, CHECKPOINT_RETRY_MS));
      }
    }
  }

  private requireCodec(): SealingCodec {
    if (!this.codec) throw new NotFoundError('this server stores nothing (a memory store): nothing is sealed');
    return this.codec;
  }
}
