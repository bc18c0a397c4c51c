/**
 * The last-known-good backup document: a snapshot in the wire format of
 * PROTOCOL §5, with its secrets sealed (AES-256-GCM) and everything else
 * authenticated, or its secrets left out when the client has no key.
 *
 * ```json
 * { "format": "vane-last-known-good", "version": 1,
 *   "service_id": "https://shop.vane.example", "saved_at": "2026-11-23T10:00:00.000Z",
 *   "snapshot": { "service": {…}, "revision": 42, "configs": {…}, "flags": {…} },
 *   "secrets": "sealed",
 *   "seal": { "key_source": "api-key", "key_id": "…", "iv": "…", "tag": "…", "ciphertext": "…" } }
 * ```
 *
 * `secrets` is `sealed` (in `seal.ciphertext`), `omitted` (the client had
 * secrets but no key to seal them: workload identity without
 * `encryptionKey`), or `none` (the snapshot had no secrets). The document
 * never holds the API key.
 *
 * @packageDocumentation
 */
import { exceedsJsonDepth } from '@vane/common';
import { MAX_VALUE_DEPTH, parseSnapshot, SnapshotFormatError, type Snapshot } from '@vane/client-core';
import { openPayload, sealPayload, SealBrokenError, type SealedPayload } from './backup-cipher.js';
import type { BackupKey, BackupKeySource } from './backup-key.js';
import { UnusableBackupError } from './unusable-backup-error.js';

/** A snapshot's own levels (snapshot, group, entry) above its deepest allowed value. */
const SNAPSHOT_DEPTH = MAX_VALUE_DEPTH + 3;

/** The `format` member of every backup. */
export const BACKUP_FORMAT = 'vane-last-known-good';
/** The version of the document written by this client. */
export const BACKUP_VERSION = 1;

/** What a backup says about secrets. */
export type BackupSecrets = 'sealed' | 'omitted' | 'none';

/** A decoded, verified backup. */
export interface BackupContents {
  /** The snapshot as it was saved (without secrets when `secrets` is `omitted`). */
  readonly snapshot: Snapshot;
  /** When it was saved, in milliseconds since the epoch (the writer's clock). */
  readonly savedAtMs: number;
  /** Whether the secrets are in `snapshot` (`sealed`), were left out (`omitted`), or there were none. */
  readonly secrets: BackupSecrets;
}

/** Who the document belongs to and how it is sealed. */
export interface BackupIdentity {
  /** The service's identity (its base URL). */
  readonly serviceId: string;
  /** The sealing key; `undefined` when the client has none (secrets are then left out, nothing is authenticated). */
  readonly key: BackupKey | undefined;
}

interface SealMember extends SealedPayload {
  readonly key_source: BackupKeySource;
  readonly key_id: string;
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Keys come from users: null-prototype objects, so a flag or secret named `__proto__` is an own member.
function snapshotToWire(snapshot: Snapshot): Obj {
  const flags: Obj = Object.create(null) as Obj;
  for (const [key, f] of snapshot.flags) {
    flags[key] = { is_enabled: f.isEnabled, starts_at: f.startsAt, ends_at: f.endsAt, is_active: f.isActive };
  }
  return {
    service: { slug: snapshot.service.slug, kind: snapshot.service.kind },
    revision: snapshot.revision,
    configs: Object.fromEntries(snapshot.configs),
    flags,
  };
}

function secretsToWire(snapshot: Snapshot): Obj {
  const secrets: Obj = Object.create(null) as Obj;
  for (const [key, s] of snapshot.secrets) secrets[key] = { type: s.type, value: s.value, version: s.version };
  return secrets;
}

/**
 * The authenticated data: every member but the ciphertext, in a fixed
 * order, so the reader rebuilds the same bytes from what it parsed.
 */
function additionalData(
  serviceId: string,
  savedAt: string,
  snapshot: unknown,
  secrets: BackupSecrets,
  key: Pick<SealMember, 'key_source' | 'key_id'>,
): string {
  return JSON.stringify([
    BACKUP_FORMAT,
    BACKUP_VERSION,
    serviceId,
    savedAt,
    snapshot,
    secrets,
    key.key_source,
    key.key_id,
  ]);
}

/**
 * Writes a snapshot as a backup document.
 *
 * @param savedAtMs - the time of the save (milliseconds since the epoch).
 * @returns the document's JSON text.
 */
export function encodeBackup(snapshot: Snapshot, savedAtMs: number, identity: BackupIdentity): string {
  const wire = snapshotToWire(snapshot);
  const savedAt = new Date(savedAtMs).toISOString();
  const doc: Obj = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    service_id: identity.serviceId,
    saved_at: savedAt,
  };
  doc['snapshot'] = wire;
  const { key } = identity;
  if (key === undefined) {
    doc['secrets'] = snapshot.secrets.size > 0 ? 'omitted' : 'none';
    doc['seal'] = null;
    return JSON.stringify(doc);
  }
  const keyInfo = { key_source: key.source, key_id: key.id };
  const aad = additionalData(identity.serviceId, savedAt, wire, 'sealed', keyInfo);
  doc['secrets'] = 'sealed';
  doc['seal'] = { ...keyInfo, ...sealPayload(JSON.stringify(secretsToWire(snapshot)), aad, key) };
  return JSON.stringify(doc);
}

function readSeal(v: unknown): SealMember {
  if (!isObject(v)) throw new UnusableBackupError('malformed: "seal" is not an object');
  for (const name of ['key_id', 'iv', 'tag', 'ciphertext'] as const) {
    if (typeof v[name] !== 'string') throw new UnusableBackupError(`malformed: "seal.${name}" is not a string`);
  }
  if (v['key_source'] !== 'api-key' && v['key_source'] !== 'encryption-key')
    throw new UnusableBackupError('malformed: "seal.key_source" is neither "api-key" nor "encryption-key"');
  return v as unknown as SealMember;
}

function describeSource(source: BackupKeySource): string {
  return source === 'api-key' ? 'from an API key' : 'from an encryptionKey';
}

/**
 * Reads and verifies a backup document.
 *
 * @throws UnusableBackupError - naming what is wrong: not JSON (e.g. truncated), not a backup, a newer
 *   format, another service's backup, sealed with another key, authentication failed (tampered),
 *   unauthenticated while the reader has a key, or a malformed snapshot.
 */
export function decodeBackup(text: string, identity: BackupIdentity): BackupContents {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // Never attach V8's message: it quotes the text, which may be a tampered secret.
    throw new UnusableBackupError(`not valid JSON (${text.length} characters; truncated?)`);
  }
  if (!isObject(doc) || doc['format'] !== BACKUP_FORMAT)
    throw new UnusableBackupError(`not a Vane last-known-good backup (no "format": "${BACKUP_FORMAT}")`);
  const version = doc['version'];
  if (version !== BACKUP_VERSION) {
    throw new UnusableBackupError(
      typeof version === 'number' && version > BACKUP_VERSION
        ? `written by a newer client (format version ${version}; this client reads ${BACKUP_VERSION})`
        : `malformed: unknown format version`,
    );
  }
  const serviceId = doc['service_id'];
  if (typeof serviceId !== 'string') throw new UnusableBackupError('malformed: "service_id" is not a string');
  if (serviceId !== identity.serviceId)
    throw new UnusableBackupError(`belongs to another service (${JSON.stringify(serviceId.slice(0, 200))})`);
  const savedAt = doc['saved_at'];
  const savedAtMs = typeof savedAt === 'string' ? Date.parse(savedAt) : NaN;
  if (typeof savedAt !== 'string' || Number.isNaN(savedAtMs))
    throw new UnusableBackupError('malformed: "saved_at" is not an RFC 3339 time');
  const secrets = doc['secrets'];
  if (secrets !== 'sealed' && secrets !== 'omitted' && secrets !== 'none')
    throw new UnusableBackupError('malformed: "secrets" is not "sealed", "omitted" or "none"');
  const wire = doc['snapshot'];
  if (!isObject(wire)) throw new UnusableBackupError('malformed: "snapshot" is not an object');
  // Checked before anything recursive (the authenticated data is stringified before the seal is opened).
  if (exceedsJsonDepth(wire, SNAPSHOT_DEPTH))
    throw new UnusableBackupError(`malformed: "snapshot" nests deeper than ${SNAPSHOT_DEPTH} levels`);

  let secretsWire: unknown = undefined;
  const { key } = identity;
  if (secrets === 'sealed') {
    const seal = readSeal(doc['seal']);
    if (key === undefined) {
      throw new UnusableBackupError(
        `sealed with a key derived ${describeSource(seal.key_source)}, and this client has none (give lastKnownGood.encryptionKey)`,
      );
    }
    if (seal.key_id !== key.id) {
      throw new UnusableBackupError(
        `sealed with another key (derived ${describeSource(seal.key_source)}; this client's is derived ${describeSource(key.source)}): the API key was rotated, or the fleet does not share one encryptionKey`,
      );
    }
    let plaintext: string;
    try {
      plaintext = openPayload(seal, additionalData(serviceId, savedAt, wire, secrets, seal), key);
    } catch (err) {
      if (err instanceof SealBrokenError)
        throw new UnusableBackupError('authentication failed: the backup was changed or truncated (tampered?)');
      throw err;
    }
    secretsWire = JSON.parse(plaintext);
  } else if (key !== undefined) {
    // A client that can check a seal never trusts a document without one: anyone able to write
    // to the store could otherwise feed it configs and flags.
    throw new UnusableBackupError('not sealed, and this client has a key: an unauthenticated backup is not served');
  }

  let snapshot: Snapshot;
  try {
    snapshot = parseSnapshot({ ...wire, secrets: secretsWire });
  } catch (err) {
    if (err instanceof SnapshotFormatError) throw new UnusableBackupError(`malformed snapshot (${err.message})`);
    throw err;
  }
  return { snapshot, savedAtMs, secrets };
}
