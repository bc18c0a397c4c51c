/**
 * Root keys: 32 random bytes each, written as base64 (or base64url), one a
 * line; the first seals, the others still open what they sealed, so a
 * keyring can hold the old key and the new one during a rotation. A key's id
 * is derived from the key, so data names the key it needs without holding it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { RootKeyError } from './root-key-error.js';

/** One root key and its id. */
export interface RootKey {
  /** `rk_` and 16 hex digits of a hash of the key. */
  readonly id: string;
  readonly key: Buffer;
}

const KEY_BYTES = 32;

/** The root keys a server holds; the first one seals. */
export class Keyring {
  private readonly byId: ReadonlyMap<string, RootKey>;

  /** @param keys - at least one; the first is the primary. */
  constructor(readonly keys: readonly RootKey[]) {
    if (keys.length === 0) throw new RootKeyError('a keyring needs at least one root key');
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  /** The key that seals. */
  get primary(): RootKey {
    return this.keys[0]!;
  }

  /** The key of this id, if the keyring holds it. */
  get(id: string): RootKey | undefined {
    return this.byId.get(id);
  }

  /** This keyring with `key` first (and once). */
  withPrimary(key: RootKey): Keyring {
    return new Keyring([key, ...this.keys.filter((k) => k.id !== key.id)]);
  }

  /**
   * Reads keys from text: one a line, blank lines and `#` comments ignored,
   * commas also separating (for an environment variable).
   *
   * @param source - names the file or variable in errors; a key is never quoted.
   * @throws RootKeyError for a line that is not 32 bytes of base64, or no key at all.
   */
  static parse(text: string, source: string): Keyring {
    const keys: RootKey[] = [];
    text.split(/\r?\n/).forEach((line, index) => {
      const content = line.replace(/#.*$/, '').trim();
      if (content === '') return;
      for (const part of content.split(',')) {
        const encoded = part.trim();
        if (encoded === '') continue;
        const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
        if (key.length !== KEY_BYTES) {
          throw new RootKeyError(
            `${source}, line ${index + 1}: a root key is ${KEY_BYTES} random bytes in base64 (openssl rand -base64 32)`,
          );
        }
        keys.push(rootKey(key));
      }
    });
    if (keys.length === 0) throw new RootKeyError(`${source}: holds no root key`);
    return new Keyring(keys);
  }

  /** A new random root key, and its text for a key file. */
  static generate(): { key: RootKey; text: string } {
    const bytes = randomBytes(KEY_BYTES);
    return { key: rootKey(bytes), text: bytes.toString('base64') };
  }
}

/** The key and its id. */
export function rootKey(key: Buffer): RootKey {
  return { id: `rk_${createHash('sha256').update('vane root key id').update(key).digest('hex').slice(0, 16)}`, key };
}
