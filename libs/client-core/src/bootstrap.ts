/**
 * The bootstrap: the state a server hands to a browser client so that it
 * starts with no request before the first paint (the public snapshot, its
 * ETag and revision, and the A/B answers for the page's user). One format,
 * produced by `@vane/browser`'s `createBootstrap` and `@vane/client`'s
 * `createBrowserBootstrap`, read by `@vane/browser`.
 *
 * @packageDocumentation
 */
import type { ConfigValue } from '@vane/common';
import { InvalidArgumentError } from './errors.js';
import { isObject as isRecord } from './json-object.js';
import { parsePublicSnapshot, SnapshotFormatError, type Snapshot } from './snapshot.js';

/** A flag as the wire carries it (PROTOCOL §5). */
export interface FlagJson {
  /** Input to the server's activity computation. */
  readonly is_enabled: boolean;
  /** RFC 3339 start, or `null`. */
  readonly starts_at: string | null;
  /** RFC 3339 end, or `null`. */
  readonly ends_at: string | null;
  /** The flag's value, computed by the server. */
  readonly is_active: boolean;
}

/** The `GET /v1/sync` body a public key receives: no `secrets` member. */
export interface PublicSnapshotJson {
  /** The service: slug and kind. */
  readonly service: { readonly slug: string; readonly kind: string };
  /** The service's revision. */
  readonly revision: number;
  /** Configs by key. */
  readonly configs: Readonly<Record<string, ConfigValue>>;
  /** Flags by key. */
  readonly flags: Readonly<Record<string, FlagJson>>;
}

/** A/B answers for one user at the bootstrap's revision (PROTOCOL §7). */
export interface BootstrapAb {
  /** The user the answers are for. */
  readonly userId: string;
  /** The attributes sent (strings only). */
  readonly attributes: Readonly<Record<string, string>>;
  /** Flag key → answer, for every key asked. */
  readonly results: Readonly<Record<string, boolean>>;
}

/** The serializable state a server hands to a browser client. */
export interface VaneBootstrap {
  /** Format version. */
  readonly v: 1;
  /** The public snapshot. */
  readonly snapshot: PublicSnapshotJson;
  /** The ETag a public key gets for it, or `null` when unknown (made from a secret-key client). */
  readonly etag: string | null;
  /** `snapshot.revision`, for a glance. */
  readonly revision: number;
  /** A/B answers for the page's user, when asked for. */
  readonly ab?: BootstrapAb;
}

/**
 * A plain object (Next.js and structured clone refuse one with no
 * prototype) whose keys are all own data members: `Object.fromEntries`
 * defines them, so a key named `__proto__` is a member like any other, not
 * the prototype.
 */
function record<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** The wire form of a snapshot's public part: secrets are never copied. */
export function publicSnapshotJson(snapshot: Snapshot): PublicSnapshotJson {
  const flags: [string, FlagJson][] = [];
  for (const [key, f] of snapshot.flags)
    flags.push([key, { is_enabled: f.isEnabled, starts_at: f.startsAt, ends_at: f.endsAt, is_active: f.isActive }]);
  return {
    service: { slug: snapshot.service.slug, kind: snapshot.service.kind },
    revision: snapshot.revision,
    configs: record(snapshot.configs),
    flags: record(flags),
  };
}

/** A bootstrap, read: the snapshot parsed, the rest checked. */
export interface ReadBootstrap {
  /** The snapshot (no secrets, whatever the input held). */
  readonly snapshot: Snapshot;
  /** The ETag, or `null`. */
  readonly etag: string | null;
  /** The A/B answers, if any. */
  readonly ab: BootstrapAb | undefined;
}

function fail(path: string, problem: string): never {
  throw new InvalidArgumentError(`bootstrap${path}: ${problem}`);
}

function strings<T>(v: unknown, path: string, type: 'string' | 'boolean'): Record<string, T> {
  if (!isRecord(v)) fail(path, 'expected an object');
  for (const key of Object.keys(v))
    if (typeof v[key] !== type) fail(`${path}[${JSON.stringify(key)}]`, `expected a ${type}`);
  return record(Object.entries(v) as [string, T][]);
}

/** A bootstrap's state, read: the snapshot parsed, the ETag checked (its `ab` member not read). */
export interface ReadBootstrapState {
  /** The snapshot (no secrets, whatever the input held). */
  readonly snapshot: Snapshot;
  /** The ETag, or `null`. */
  readonly etag: string | null;
}

/**
 * Checks a bootstrap's state (e.g. parsed from the page) and parses its
 * snapshot; its `ab` member is {@link readBootstrapAb}'s, so that a client
 * with no A/B carries none of its checks. A bootstrap holding secrets is
 * refused: a browser never takes them.
 *
 * @throws InvalidArgumentError - naming the member at fault, never a value.
 */
export function readBootstrapState(doc: unknown): ReadBootstrapState {
  if (!isRecord(doc) || doc['v'] !== 1) fail('', 'expected v: 1');
  const raw = doc['snapshot'];
  if (isRecord(raw) && raw['secrets'] !== undefined) fail('.snapshot.secrets', 'not allowed');
  let snapshot: Snapshot;
  try {
    snapshot = parsePublicSnapshot(raw);
  } catch (err) {
    if (err instanceof SnapshotFormatError) fail('.snapshot', err.message);
    throw err;
  }
  const etag = doc['etag'];
  if (etag !== null && typeof etag !== 'string') fail('.etag', 'expected a string or null');
  if (doc['revision'] !== snapshot.revision) fail('.revision', 'not snapshot.revision');
  return { snapshot, etag };
}

/**
 * Checks the A/B answers of a bootstrap whose state {@link readBootstrapState} read.
 *
 * @returns the answers, `undefined` when the bootstrap has none.
 * @throws InvalidArgumentError - naming the member at fault, never a value.
 */
export function readBootstrapAb(doc: unknown): BootstrapAb | undefined {
  const ab = isRecord(doc) ? doc['ab'] : undefined;
  if (ab === undefined) return undefined;
  if (!isRecord(ab) || typeof ab['userId'] !== 'string') fail('.ab', 'expected an object with a string userId');
  return {
    userId: ab['userId'],
    attributes: strings<string>(ab['attributes'] ?? {}, '.ab.attributes', 'string'),
    results: strings<boolean>(ab['results'], '.ab.results', 'boolean'),
  };
}

/**
 * Checks a bootstrap (e.g. parsed from the page) and parses its snapshot:
 * {@link readBootstrapState} and {@link readBootstrapAb}. A bootstrap
 * holding secrets is refused: a browser never takes them.
 *
 * @throws InvalidArgumentError - naming the member at fault, never a value.
 */
export function readBootstrap(doc: unknown): ReadBootstrap {
  const state = readBootstrapState(doc);
  return { ...state, ab: readBootstrapAb(doc) };
}
