/**
 * AES-256-GCM sealing of a backup's secrets, with the rest of the backup as
 * additional authenticated data: one tag covers the whole document, so a
 * changed config, a truncated file or a foreign backup fails to open.
 *
 * @packageDocumentation
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { BackupKey } from './backup-key.js';

/** A sealed payload, every binary member in base64. */
export interface SealedPayload {
  /** The 96-bit nonce, fresh for every seal. */
  readonly iv: string;
  /** The 128-bit GCM authentication tag. */
  readonly tag: string;
  /** The encrypted payload. */
  readonly ciphertext: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Thrown by {@link openPayload} when authentication fails (wrong key, or anything changed). */
export class SealBrokenError extends Error {
  constructor() {
    super('authentication failed: the backup was changed, truncated, or sealed with another key');
    this.name = 'SealBrokenError';
  }
}

/**
 * Encrypts `plaintext` and authenticates it together with `aad`.
 *
 * @param plaintext - UTF-8 text to encrypt (the secrets).
 * @param aad - UTF-8 text authenticated but not encrypted (the rest of the backup).
 */
export function sealPayload(plaintext: string, aad: string, key: BackupKey): SealedPayload {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/**
 * Decrypts a payload sealed by {@link sealPayload} with the same key and `aad`.
 *
 * @throws SealBrokenError - when the tag does not verify (nothing decrypted is returned).
 */
export function openPayload(sealed: SealedPayload, aad: string, key: BackupKey): string {
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealBrokenError();
  const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    // OpenSSL's message says nothing useful; its stack would point into crypto internals.
    throw new SealBrokenError();
  }
}
