/**
 * HMAC keys for what the server signs and later verifies itself (workload
 * sessions, console logins), derived from the root key per period. Every
 * replica holding the root key derives the same keys, so none is stored nor
 * shared, and they rotate each period by themselves.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import type { Keyring, RootKey } from '../sealing/keyring.js';

/** A signing key and the id a signature names it by. */
export interface SigningKey {
  /** `<root key id>-<period number>`, or `process` for a key of this process only. */
  readonly id: string;
  readonly key: Buffer;
}

/** How long one derived key signs: a day. */
export const SIGNING_KEY_PERIOD_MS = 24 * 60 * 60 * 1000;

const ID_PATTERN = /^(rk_[0-9a-f]+)-(\d+)$/;

/** The signing keys of one purpose. */
export class SigningKeys {
  private readonly derived = new Map<string, Buffer>();
  private readonly processKey: SigningKey = { id: 'process', key: randomBytes(32) };

  /**
   * @param purpose - keeps the keys of two uses apart (`session`, `console`).
   * @param keyring - the root keys, read at each use (a rotation changes them); undefined: a random key of
   *   this process signs, and a restart forgets it.
   * @param now - wall-clock milliseconds.
   * @param periodMs - how long a key signs; what it signed verifies one period more.
   */
  constructor(
    private readonly purpose: string,
    private readonly keyring: () => Keyring | undefined,
    private readonly now: () => number = Date.now,
    readonly periodMs: number = SIGNING_KEY_PERIOD_MS,
  ) {}

  /** The key that signs now: derived from the primary root key for the current period. */
  current(): SigningKey {
    const ring = this.keyring();
    if (ring === undefined) return this.processKey;
    return this.derive(ring.primary, Math.floor(this.now() / this.periodMs));
  }

  /**
   * The key `id` names, if it may still verify: from a root key the keyring
   * holds, for this period, the one before (signed just before the turn) or
   * the next (a replica whose clock runs a little ahead).
   */
  find(id: string): Buffer | undefined {
    if (id === this.processKey.id) return this.keyring() === undefined ? this.processKey.key : undefined;
    const match = ID_PATTERN.exec(id);
    const root = match === null ? undefined : this.keyring()?.get(match[1]!);
    if (match === null || root === undefined) return undefined;
    const period = Number(match[2]);
    const current = Math.floor(this.now() / this.periodMs);
    if (period < current - 1 || period > current + 1) return undefined;
    return this.derive(root, period).key;
  }

  private derive(root: RootKey, period: number): SigningKey {
    const id = `${root.id}-${period}`;
    let key = this.derived.get(id);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', root.key, 'vane signing key', `${this.purpose}:${period}`, 32));
      // Three periods of two root keys at most are live; keep the map that small.
      if (this.derived.size >= 8) this.derived.delete(this.derived.keys().next().value!);
      this.derived.set(id, key);
    }
    return { id, key };
  }
}
