/**
 * AES-256-GCM; the output is `iv | tag | ciphertext`, base64url. The
 * associated data binds a ciphertext to where it belongs, so one moved
 * elsewhere fails to open.
 *
 * The 96-bit IV is synthetic: an HMAC of the associated data and the
 * plaintext under a key derived from the sealing key, so two different
 * messages never share an IV, and sealing the same value in the same place
 * again gives the same bytes (a state file rewritten without a change stays
 * the same file; it reveals only that a value did not change).
 */
import { createCipheriv, createDecipheriv, createHmac, hash } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** SHA-256's block: HMAC's key pads are one block each. */
const BLOCK_BYTES = 64;

/**
 * The key the synthetic IV is derived with, from the sealing key, as the
 * two HMAC-SHA-256 key blocks (key XOR ipad, key XOR opad): derive it once
 * per key and keep it, so each seal hashes with one-shot `crypto.hash` calls
 * instead of building an `Hmac` object.
 */
export interface IvKey {
  readonly inner: Buffer;
  readonly outer: Buffer;
}

/** The {@link IvKey} of a sealing key. */
export function ivKeyOf(key: Buffer): IvKey {
  const ivKey = createHmac('sha256', key).update('vane synthetic iv').digest();
  const inner = Buffer.alloc(BLOCK_BYTES, 0x36);
  const outer = Buffer.alloc(BLOCK_BYTES, 0x5c);
  for (let i = 0; i < ivKey.length; i++) {
    inner[i]! ^= ivKey[i]!;
    outer[i]! ^= ivKey[i]!;
  }
  return { inner, outer };
}

/** Seals `plaintext` under `key` (32 bytes) for `aad`; `ivKey` is {@link ivKeyOf} of `key`. */
export function sealBytes(key: Buffer, plaintext: Buffer, aad: string, ivKey: IvKey = ivKeyOf(key)): string {
  const aadBytes = Buffer.from(aad, 'utf8');
  // HMAC-SHA-256(ivKey, aad | 0 | plaintext) (RFC 2104), the same bytes an Hmac object gives.
  const inner = hash('sha256', Buffer.concat([ivKey.inner, aadBytes, ZERO, plaintext]), 'buffer');
  const iv = hash('sha256', Buffer.concat([ivKey.outer, inner]), 'buffer').subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aadBytes);
  const out = Buffer.allocUnsafe(IV_BYTES + TAG_BYTES + plaintext.length);
  iv.copy(out, 0);
  // GCM is a stream cipher: update gives every byte, final none.
  const written = cipher.update(plaintext).copy(out, IV_BYTES + TAG_BYTES);
  cipher.final().copy(out, IV_BYTES + TAG_BYTES + written);
  cipher.getAuthTag().copy(out, IV_BYTES);
  return out.toString('base64url');
}

const ZERO = Buffer.of(0);

/** Opens what {@link sealBytes} sealed; undefined when the key, the AAD or any byte differs. */
export function openBytes(key: Buffer, sealed: string, aad: string): Buffer | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
