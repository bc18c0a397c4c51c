/**
 * The key that seals a last-known-good backup: derived with HKDF-SHA-256
 * from the static API key or from an explicit `encryptionKey`, and bound to
 * one service. The key material itself never leaves memory; a backup names
 * its key only by a short identifier derived separately.
 *
 * @packageDocumentation
 */
import { hkdfSync } from 'node:crypto';

/** Where the key material came from (recorded in the backup, so a reader can say why it cannot open one). */
export type BackupKeySource = 'api-key' | 'encryption-key';

/** A derived AES-256 key and its public identifier. */
export interface BackupKey {
  /** 32 bytes for AES-256-GCM. Never logged, never stored. */
  readonly key: Buffer;
  /** 16 hex characters identifying the key (a separate HKDF output: reveals nothing of `key`). */
  readonly id: string;
  /** What the key was derived from. */
  readonly source: BackupKeySource;
}

/** Shortest explicit `encryptionKey` accepted, in bytes: HKDF adds no strength to a weak secret. */
export const MIN_ENCRYPTION_KEY_BYTES = 32;

const SALT = Buffer.from('vane/last-known-good/v1', 'utf8');

function derive(material: Buffer, info: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', material, SALT, Buffer.from(info, 'utf8'), length));
}

/**
 * Derives the key of one service's backup.
 *
 * @param material - the static API key, or the explicit `encryptionKey` (at least 32 bytes).
 * @param source - which of the two `material` is.
 * @param serviceId - the service's identity (its base URL): the key of one service opens no other's backup.
 */
export function deriveBackupKey(material: string | Uint8Array, source: BackupKeySource, serviceId: string): BackupKey {
  const ikm = typeof material === 'string' ? Buffer.from(material, 'utf8') : Buffer.from(material);
  return Object.freeze({
    key: derive(ikm, `aes-256-gcm ${serviceId}`, 32),
    id: derive(ikm, `key-id ${serviceId}`, 8).toString('hex'),
    source,
  });
}
