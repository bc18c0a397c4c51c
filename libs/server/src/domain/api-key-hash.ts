import { hash } from 'node:crypto';
import { redactKey } from '@vane/common';
import type { ApiKeyRecord, ServerData } from './model.js';

/**
 * SHA-256 of an API key, hex. Keys the server makes carry 144 random bits,
 * so a fast hash is enough to make the stored form useless to whoever reads
 * it; a seed's hand-written keys are only as strong as their author made them.
 */
export function hashApiKey(key: string): string {
  // One-shot (strings are hashed as UTF-8): every request with a key pays this.
  return hash('sha256', key, 'hex');
}

/** The record the server keeps of a key it was given or made: hash, hint, type, and the key for this process only. */
export function apiKeyRecord(key: string): ApiKeyRecord {
  return {
    hash: hashApiKey(key),
    hint: redactKey(key),
    type: key.startsWith('svs_') ? 'secret' : 'public',
    plaintext: key,
  };
}

/** The persisted form of a key record: everything but the key. */
export function storedApiKey(record: ApiKeyRecord): ApiKeyRecord {
  return { hash: record.hash, hint: record.hint, type: record.type };
}

/**
 * Gives the keys of `loaded` the plaintext `known` holds for the same hash:
 * a store that reads back the seed it just wrote (PostgreSQL) knows the
 * seed's keys in full, as a state file's first owner does.
 */
export function keepKnownKeys(loaded: ServerData, known: ServerData): void {
  const plaintext = new Map<string, string>();
  for (const service of known.services.values()) {
    for (const key of service.keys) if (key.plaintext !== undefined) plaintext.set(key.hash, key.plaintext);
  }
  for (const service of loaded.services.values()) {
    for (const key of service.keys) key.plaintext ??= plaintext.get(key.hash);
  }
}
