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
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key the synthetic IV is derived with, from the sealing key: derive it once per key and keep it. */
export function ivKeyOf(key: Buffer): Buffer {
  return createHmac('sha256', key).update('vane synthetic iv').digest();
}

/** Seals `plaintext` under `key` (32 bytes) for `aad`; `ivKey` is {@link ivKeyOf} of `key`. */
export function sealBytes(key: Buffer, plaintext: Buffer, aad: string, ivKey: Buffer = ivKeyOf(key)): string {
  const iv = createHmac('sha256', ivKey).update(aad).update('\u0000').update(plaintext).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

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
