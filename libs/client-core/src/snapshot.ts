/**
 * The cached snapshot: its types, and the strict parsing of the wire format
 * (PROTOCOL §5). A document that breaks the format is refused as a whole, so
 * the cache is never half updated.
 *
 * @packageDocumentation
 */
import type { ConfigValue, JsonValue, SecretType } from '@vane/common';
import { isObject, typeName } from './json-object.js';

export type { ConfigValue, JsonValue, SecretType };

/** A flag as the service sends it. `isActive` is computed by the server; clients never compute it. */
export interface FlagRecord {
  /** Input to the server's activity computation. */
  readonly isEnabled: boolean;
  /** RFC 3339 start, or `null` for unbounded. */
  readonly startsAt: string | null;
  /** RFC 3339 end, or `null` for unbounded. */
  readonly endsAt: string | null;
  /** The flag's value, as computed by the server. */
  readonly isActive: boolean;
}

/** A secret as cached (secret-key clients of non-frontend services only). */
export interface CachedSecret {
  /** `text` or `file`. */
  readonly type: SecretType;
  /** The plaintext or the file content. Never logged. */
  readonly value: string;
  /** 1-based version number (the highest remaining version). */
  readonly version: number;
}

/** The service the snapshot belongs to. */
export interface ServiceInfo {
  /** Subdomain slug of the service. */
  readonly slug: string;
  /** Kind reported by the server; `frontend` means no secrets. */
  readonly kind: string;
}

/** An immutable snapshot of a service: what the cache holds, swapped as a whole. */
export interface Snapshot {
  /** The service the snapshot belongs to. */
  readonly service: ServiceInfo;
  /** Revision of the service this snapshot reflects. */
  readonly revision: number;
  /** Configs by key. */
  readonly configs: ReadonlyMap<string, ConfigValue>;
  /** Flags by key. */
  readonly flags: ReadonlyMap<string, FlagRecord>;
  /** Secrets by key (empty for a public key or a frontend service). */
  readonly secrets: ReadonlyMap<string, CachedSecret>;
}

/** A patch event's data (PROTOCOL §6), parsed. */
export interface Patch {
  /** Revision the patch applies to. */
  readonly base: number;
  /** Revision after the patch. */
  readonly revision: number;
  /** New service info, when it changed. */
  readonly service?: ServiceInfo;
  /** Configs set by the patch. */
  readonly configs: ReadonlyMap<string, ConfigValue>;
  /** Flags set by the patch. */
  readonly flags: ReadonlyMap<string, FlagRecord>;
  /** Secrets set by the patch. */
  readonly secrets: ReadonlyMap<string, CachedSecret>;
  /** Keys deleted by the patch. */
  readonly deleted: {
    readonly configs: readonly string[];
    readonly flags: readonly string[];
    readonly secrets: readonly string[];
  };
  /**
   * When the service committed the change (`committed_at`, its clock), in ms
   * since the epoch; `undefined` when absent or unreadable. Used for nothing
   * but the propagation-lag measure (PROTOCOL §6).
   */
  readonly committedAtMs?: number;
}

/** Thrown by the parsers below; its message names the JSON path, never a value. */
export class SnapshotFormatError extends Error {
  /** @param path - JSON path of the offending member. @param problem - what is wrong. */
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'SnapshotFormatError';
  }
}

type Obj = Record<string, unknown>;

/**
 * Returns `v` when `ok`; otherwise throws, naming the path and what was
 * expected. The value itself is never echoed (it may be a secret).
 */
function check<T>(ok: boolean, path: string, expected: string, v: unknown): T {
  if (!ok) throw new SnapshotFormatError(path, `expected ${expected}, got ${typeName(v)}`);
  return v as T;
}

function parseRevision(v: unknown, path: string): number {
  return check(Number.isSafeInteger(v) && (v as number) >= 0, path, 'a non-negative integer', v);
}

function parseString(v: unknown, path: string): string {
  return check(typeof v === 'string', path, 'a string', v);
}

function parseObject(v: unknown, path: string): Obj {
  return check(isObject(v), path, 'an object', v);
}

function parseService(v: unknown, path: string): ServiceInfo {
  const o = parseObject(v, path);
  return Object.freeze({ slug: parseString(o['slug'], `${path}.slug`), kind: parseString(o['kind'], `${path}.kind`) });
}

/** Deepest nesting of arrays and objects a config value may have (far beyond any real config). */
export const MAX_VALUE_DEPTH = 100;

/**
 * Freezes an array or object value and everything in it, refusing one nested
 * deeper than {@link MAX_VALUE_DEPTH} (`[]` is depth 1). One walk does both;
 * its recursion stops at that depth, so a hostile document cannot overflow
 * the stack.
 */
function freezeValue(v: unknown, path: string, depth: number): void {
  if (typeof v !== 'object' || v === null) return;
  if (depth > MAX_VALUE_DEPTH) throw new SnapshotFormatError(path, `nested deeper than ${MAX_VALUE_DEPTH} levels`);
  for (const inner of Object.values(v)) freezeValue(inner, path, depth + 1);
  Object.freeze(v);
}

function parseConfigValue(v: unknown, path: string): ConfigValue {
  // An object is the likely mistake, so it is named; what JSON cannot hold (Infinity, undefined…) is not a JSON value.
  if (isObject(v)) throw new SnapshotFormatError(path, 'objects are not config values');
  const json = v === null || Array.isArray(v) || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v);
  check(json, path, 'a JSON value', v);
  freezeValue(v, path, 1);
  return v as ConfigValue;
}

function parseTimestamp(v: unknown, path: string): string | null {
  if (v === null || v === undefined) return null;
  return parseString(v, path);
}

function parseBoolean(v: unknown, path: string): boolean {
  return check(typeof v === 'boolean', path, 'a boolean', v);
}

function parseFlag(v: unknown, path: string): FlagRecord {
  const o = parseObject(v, path);
  return Object.freeze({
    isActive: parseBoolean(o['is_active'], `${path}.is_active`),
    isEnabled: parseBoolean(o['is_enabled'], `${path}.is_enabled`),
    startsAt: parseTimestamp(o['starts_at'], `${path}.starts_at`),
    endsAt: parseTimestamp(o['ends_at'], `${path}.ends_at`),
  });
}

function parseSecret(v: unknown, path: string): CachedSecret {
  const { type, value, version } = parseObject(v, path);
  if (type !== 'text' && type !== 'file') throw new SnapshotFormatError(`${path}.type`, 'expected "text" or "file"');
  const text = parseString(value, `${path}.value`);
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1)
    throw new SnapshotFormatError(`${path}.version`, 'expected a 1-based integer');
  return Object.freeze({ type, value: text, version });
}

function parseGroup<T>(v: unknown, path: string, parseItem: (item: unknown, path: string) => T): Map<string, T> {
  const out = new Map<string, T>();
  if (v !== undefined)
    for (const [key, item] of Object.entries(parseObject(v, path)))
      out.set(key, parseItem(item, `${path}[${JSON.stringify(key)}]`));
  return out;
}

function parseKeyList(v: unknown, path: string): readonly string[] {
  if (v === undefined) return [];
  return Object.freeze(
    check<unknown[]>(Array.isArray(v), path, 'an array of keys', v).map((k, i) => parseString(k, `${path}[${i}]`)),
  );
}

/**
 * Parses the public part of a `200 /v1/sync` body (already `JSON.parse`d):
 * service, revision, configs and flags; `secrets` is not read and comes out
 * empty. What a public key is sent (it never holds secrets), so a browser
 * client carries no secret parsing.
 *
 * @throws SnapshotFormatError - naming the JSON path at fault (never a value).
 */
export function parsePublicSnapshot(doc: unknown): Snapshot {
  const o = parseObject(doc, '$');
  return Object.freeze({
    service: parseService(o['service'], '$.service'),
    revision: parseRevision(o['revision'], '$.revision'),
    configs: parseGroup(o['configs'], '$.configs', parseConfigValue),
    flags: parseGroup(o['flags'], '$.flags', parseFlag),
    secrets: new Map<string, CachedSecret>(),
  });
}

/**
 * Parses a `200 /v1/sync` body (already `JSON.parse`d) into an immutable
 * snapshot, secrets included.
 *
 * @throws SnapshotFormatError - naming the JSON path at fault (never a value).
 */
export function parseSnapshot(doc: unknown): Snapshot {
  const snapshot = parsePublicSnapshot(doc);
  return Object.freeze({ ...snapshot, secrets: parseGroup((doc as Obj)['secrets'], '$.secrets', parseSecret) });
}

/**
 * Parses the public part of a `patch` event's data (already `JSON.parse`d),
 * as {@link parsePublicSnapshot} does: secrets (set or deleted) and
 * `committed_at` are not read.
 *
 * @throws SnapshotFormatError - naming the JSON path at fault (never a value).
 */
export function parsePublicPatch(doc: unknown): Patch {
  const o = parseObject(doc, '$');
  const d = o['deleted'] === undefined ? {} : parseObject(o['deleted'], '$.deleted');
  return Object.freeze({
    base: parseRevision(o['base'], '$.base'),
    revision: parseRevision(o['revision'], '$.revision'),
    configs: parseGroup(o['configs'], '$.configs', parseConfigValue),
    flags: parseGroup(o['flags'], '$.flags', parseFlag),
    secrets: new Map<string, CachedSecret>(),
    deleted: Object.freeze({
      configs: parseKeyList(d['configs'], '$.deleted.configs'),
      flags: parseKeyList(d['flags'], '$.deleted.flags'),
      secrets: [],
    }),
    ...(o['service'] !== undefined && { service: parseService(o['service'], '$.service') }),
  });
}

/**
 * Parses the data of a `patch` event (already `JSON.parse`d), secrets and
 * `committed_at` included.
 *
 * @throws SnapshotFormatError - naming the JSON path at fault (never a value).
 */
export function parsePatch(doc: unknown): Patch {
  const patch = parsePublicPatch(doc);
  const o = doc as Obj;
  const committedAtMs = parseCommittedAt(o['committed_at']);
  return Object.freeze({
    ...patch,
    secrets: parseGroup(o['secrets'], '$.secrets', parseSecret),
    deleted: Object.freeze({
      ...patch.deleted,
      secrets: parseKeyList(((o['deleted'] ?? {}) as Obj)['secrets'], '$.deleted.secrets'),
    }),
    ...(committedAtMs !== undefined && { committedAtMs }),
  });
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * `committed_at` is informative only (PROTOCOL §6: a client tolerates its
 * absence), so a value that is not an RFC 3339 time is ignored, never an
 * error that would cost the patch.
 */
function parseCommittedAt(value: unknown): number | undefined {
  if (typeof value !== 'string' || !RFC3339.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

function applyGroup<T>(
  current: ReadonlyMap<string, T>,
  set: ReadonlyMap<string, T>,
  deleted: readonly string[],
): ReadonlyMap<string, T> {
  if (set.size === 0 && deleted.length === 0) return current;
  const next = new Map(current);
  for (const key of deleted) next.delete(key);
  for (const [key, value] of set) next.set(key, value);
  return next;
}

/**
 * Applies a patch to a snapshot, returning a new snapshot (the input is not
 * touched). The caller checks `patch.base === snapshot.revision` first.
 * Groups the patch does not touch are shared, not copied.
 */
export function applyPatch(snapshot: Snapshot, patch: Patch): Snapshot {
  return Object.freeze({
    service: patch.service ?? snapshot.service,
    revision: patch.revision,
    configs: applyGroup(snapshot.configs, patch.configs, patch.deleted.configs),
    flags: applyGroup(snapshot.flags, patch.flags, patch.deleted.flags),
    secrets: applyGroup(snapshot.secrets, patch.secrets, patch.deleted.secrets),
  });
}

/** What to do with a patch event: drop it, apply it, or resync. */
export type PatchDecision = 'stale' | 'apply' | 'resync';

/**
 * PROTOCOL §6: a patch is applied when its `base` equals the cache's
 * revision; one the cache already has (`revision` not ahead) is stale
 * (e.g. replayed after a reconnect); any other needs a resync.
 */
export function decidePatch(current: Snapshot, patch: Patch): PatchDecision {
  if (patch.revision <= current.revision) return 'stale';
  return patch.base === current.revision ? 'apply' : 'resync';
}

/** An empty snapshot, revision 0 (used only as the "before" of the first diff; never served). */
export const EMPTY_SNAPSHOT: Snapshot = /* @__PURE__ */ Object.freeze({
  service: /* @__PURE__ */ Object.freeze({ slug: '', kind: '' }),
  revision: 0,
  configs: new Map<string, ConfigValue>(),
  flags: new Map<string, FlagRecord>(),
  secrets: new Map<string, CachedSecret>(),
});
