import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { jsonEqual, type SecretWriteResult } from '@vane/common';
import { apiKeyRecord, hashApiKey, storedApiKey } from '../sealing/api-key-hash.js';
import type { CancellableTimer, TimerClock } from './clock.js';
import { chainAuditEntry, type AuditChainKey, type AuditFields } from '../audit/audit-chain.js';
import { DEFAULT_PROJECT } from './model.js';
import type {
  AuditRecord,
  ConfigValue,
  AdminRight,
  AdminTokenRecord,
  FlagDefinition,
  GuessRecord,
  JsonValue,
  ProjectRecord,
  TokenScope,
  SecretRecord,
  SecretType,
  ServerData,
  ServiceData,
  TenantState,
  TrustDefinition,
} from './model.js';
import { applyStateChange, emptyService, type StateChange } from '../persistence/state-change.js';
import { NotFoundError } from './not-found-error.js';
import { ConflictError } from './conflict-error.js';

/** Change stage 4, its detail: which of a service's values one {@link CommittedRevision} touched. */
export interface ChangeSet {
  /** The service record itself (its kind) changed. */
  readonly service: boolean;
  readonly configs: ReadonlySet<string>;
  readonly flags: ReadonlySet<string>;
  readonly secrets: ReadonlySet<string>;
}

/** Change stage 4: one revision of one service once durable, as the stream, patches and caches hear of it. */
export interface CommittedRevision {
  readonly slug: string;
  readonly base: number;
  readonly revision: number;
  readonly changes: ChangeSet;
  /** When the change was committed, on the server's clock (ms since the epoch): the patch's `committed_at`. */
  readonly committedAtMs: number;
}

/** Who a static key (or a session standing in for one) belongs to. */
export interface KeyIdentity {
  readonly slug: string;
  /** What streams and rate limits know the caller by: a static key's hash, or `session:<trust>:<subject>`. */
  readonly key: string;
  readonly type: 'secret' | 'public';
  revoked: boolean;
}

/** The outcome of a secret write: the write's answer (`@vane/common`'s {@link SecretWriteResult}) and the service's revision after it. */
export interface SecretWriteOutcome extends SecretWriteResult {
  /** The service's revision after the write. */
  readonly revision: number;
}

/** Listeners the store calls synchronously after each mutation. */
export interface StoreListeners {
  /** A service got a new revision. */
  change?(change: CommittedRevision): void;
  /** Anything at all changed (keys, tenant, audit included), before `change` is called: time to persist. Every change made by someone carries its audit entry. */
  mutation?(change: StateChange): void;
  /** A key was revoked. */
  keyRevoked?(identity: KeyIdentity): void;
  /** The tenant's settings changed. */
  tenantChanged?(tenant: Readonly<TenantState>): void;
  /** A workload-identity trust was removed or replaced: the sessions it issued end. */
  trustChanged?(slug: string, name: string): void;
  /**
   * A flag schedule boundary of `slug` is due: run `turn` as a write. A fleet
   * store runs it under its write lock, so one replica commits the boundary's
   * revision and the others learn of it; the default runs it at once.
   */
  boundaryDue?(slug: string, turn: () => void): void;
  /**
   * The whole state was replaced by what the store holds ({@link Store.reload}):
   * `slugs` are the services whose state or revision changed, without a
   * patch for what changed (their streams must be told to sync).
   */
  reloaded?(slugs: readonly string[]): void;
}

/** What {@link Store.saveServices} kept, for {@link Store.restoreServices}. */
export interface SavedServices {
  readonly tenant: TenantState;
  readonly auditLength: number;
  readonly projects: ServerData['projects'];
  readonly tokens: ServerData['tokens'];
  readonly services: ReadonlyMap<string, { service: ServiceData; published: Map<string, boolean> } | undefined>;
}

/**
 * A copy of `service` that a write cannot reach: every container a write
 * changes in place (the service's own fields, its maps and arrays, each
 * secret's record and version list) is new; the values in them, which writes
 * replace and never edit, are shared. A deep copy cost a write time in
 * proportion to every secret version the service ever kept.
 */
function copyForUndo(service: ServiceData): ServiceData {
  const secrets = new Map<string, SecretRecord>();
  for (const [key, record] of service.secrets) secrets.set(key, { ...record, versions: [...record.versions] });
  return {
    ...service,
    keys: [...service.keys],
    revoked_keys: [...service.revoked_keys],
    configs: new Map(service.configs),
    flags: new Map(service.flags),
    secrets,
    next_versions: new Map(service.next_versions),
    trusts: new Map(service.trusts),
    data_keys: [...service.data_keys],
  };
}

/** Options of a {@link Store}. */
export interface StoreOptions {
  /**
   * When each service's state was last committed (ms since the epoch): the
   * `is_active` it was published with is computed at that moment, so replicas
   * that load the same state publish the same. @default now
   */
  committedAtMs?: (slug: string) => number | undefined;
  /**
   * The key new audit entries are chained with (derived from the primary
   * root key, read at each change: a rotation changes it). @default none:
   * an unkeyed chain (a store without a root key)
   */
  auditKey?: () => AuditChainKey | undefined;
}

const EMPTY: ReadonlySet<string> = new Set();

/** How often a token's `last_used_at` is recorded at most, in ms. */
const TOKEN_USE_RESOLUTION_MS = 60_000;

/** `is_active` exactly as PROTOCOL §5 defines it. */
export function computeIsActive(flag: FlagDefinition, nowMs: number): boolean {
  if (!flag.is_enabled) return false;
  if (flag.starts_at !== null && nowMs < Date.parse(flag.starts_at)) return false;
  if (flag.ends_at !== null && nowMs >= Date.parse(flag.ends_at)) return false;
  return true;
}

export { redactKey } from '@vane/common';

/** The value a secret serves: its highest remaining version. */
export function currentVersion(record: SecretRecord): SecretRecord['versions'][number] {
  return record.versions[record.versions.length - 1]!;
}

/**
 * The local server's state and every way to change it. All mutations validate
 * their whole input before touching anything, commit one revision, and tell
 * the listeners synchronously, so a stream sees a change before the admin call
 * that made it returns.
 */
export class Store {
  private readonly keyIndex = new Map<string, KeyIdentity>();
  /** The `is_active` each flag was last published with, per service. */
  private readonly published = new Map<string, Map<string, boolean>>();
  private readonly boundaryTimers = new Map<string, CancellableTimer>();
  /** When each service last got a revision (ms since the epoch). */
  private readonly committedAt = new Map<string, number>();
  private closed = false;
  private readonly auditKey: () => AuditChainKey | undefined;

  constructor(
    readonly data: ServerData,
    private readonly clock: TimerClock,
    private readonly listeners: StoreListeners = {},
    options: StoreOptions = {},
  ) {
    this.auditKey = options.auditKey ?? (() => undefined);
    for (const [slug, service] of data.services) {
      const committedAt = options.committedAtMs?.(slug) ?? clock.now();
      this.committedAt.set(slug, committedAt);
      this.indexKeys(slug, service);
      this.published.set(slug, this.computeActive(service, committedAt));
      this.scheduleNextBoundary(slug);
    }
  }

  /**
   * Applies a change another replica committed, as the journal replays one,
   * and tells the listeners as if it were made here: the patch of `changes`
   * is rendered from the data as this revision left it. A flag's `is_active`
   * is computed at `committedAtMs`, as the writer computed it.
   */
  applyCommitted(change: StateChange, changes: ChangeSet | null, committedAtMs: number): void {
    const slug = 'slug' in change && typeof change.slug === 'string' ? change.slug : undefined;
    const before = slug === undefined ? undefined : this.data.services.get(slug);
    applyStateChange(this.data, change);
    this.listeners.mutation?.(change);
    if (slug === undefined || !('slug' in change)) {
      if (change.type === 'tenant') this.listeners.tenantChanged?.(this.data.tenant);
      return;
    }
    const service = this.data.services.get(change.slug)!;
    if (before === undefined) this.published.set(change.slug, new Map());
    if (change.type === 'key') {
      this.indexKeys(change.slug, service);
      const identity = this.keyIndex.get(typeof change.key === 'string' ? change.key : change.key.hash);
      if (change.revoked && identity) this.listeners.keyRevoked?.(identity);
      return;
    }
    if (change.type === 'trust') {
      this.listeners.trustChanged?.(change.slug, change.name);
      return;
    }
    if (changes === null || !('revision' in change)) return;
    const published = this.published.get(change.slug)!;
    for (const key of changes.flags) {
      const flag = service.flags.get(key);
      if (flag) published.set(key, computeIsActive(flag, committedAtMs));
      else published.delete(key);
    }
    if (changes.flags.size > 0) this.scheduleNextBoundary(change.slug);
    this.committedAt.set(change.slug, committedAtMs);
    this.listeners.change?.({
      slug: change.slug,
      base: change.revision - 1,
      revision: change.revision,
      changes,
      committedAtMs,
    });
  }

  /**
   * Keeps a copy of the tenant and of the services a write may touch (all
   * when `slugs` is `'all'`), so a write whose commit failed can be undone.
   */
  saveServices(slugs: readonly string[] | 'all'): SavedServices {
    const names = slugs === 'all' ? [...this.data.services.keys()] : slugs;
    const services = new Map<string, { service: ServiceData; published: Map<string, boolean> } | undefined>();
    for (const slug of names) {
      const service = this.data.services.get(slug);
      services.set(slug, service && { service: copyForUndo(service), published: new Map(this.published.get(slug)) });
    }
    return {
      tenant: { ...this.data.tenant },
      auditLength: this.data.audit.length,
      projects: structuredClone(this.data.projects),
      tokens: structuredClone(this.data.tokens),
      services,
    };
  }

  /** Puts back what {@link saveServices} kept; services created since, among those named, are removed. */
  restoreServices(saved: SavedServices): void {
    Object.assign(this.data.tenant, saved.tenant);
    this.data.audit.length = saved.auditLength;
    this.data.projects = structuredClone(saved.projects);
    this.data.tokens = structuredClone(saved.tokens);
    for (const [slug, kept] of saved.services) {
      for (const [key, identity] of this.keyIndex) if (identity.slug === slug) this.keyIndex.delete(key);
      if (kept === undefined) {
        this.data.services.delete(slug);
        this.published.delete(slug);
        this.boundaryTimers.get(slug)?.cancel();
        this.boundaryTimers.delete(slug);
        continue;
      }
      this.data.services.set(slug, kept.service);
      this.published.set(slug, kept.published);
      this.indexKeys(slug, kept.service);
      this.scheduleNextBoundary(slug);
    }
  }

  /**
   * Replaces the whole state with `fresh`, as the store holds it (a replica
   * found drifting reloads from the database), and rebuilds what is derived
   * from it, as the constructor does. Keys revoked, trusts replaced and a
   * tenant changed by the swap are told to the listeners as if applied; the
   * services that changed are told to `reloaded`.
   */
  reload(fresh: ServerData, committedAtMs: ReadonlyMap<string, number>): void {
    const before = new Map(this.data.services);
    const publishedBefore = new Map(this.published);
    const tenantBefore = { ...this.data.tenant };
    const identitiesBefore = [...this.keyIndex.values()];
    Object.assign(this.data.tenant, fresh.tenant);
    this.data.audit.splice(0, this.data.audit.length, ...fresh.audit);
    this.data.projects = fresh.projects;
    this.data.tokens = fresh.tokens;
    this.data.services.clear();
    for (const [slug, service] of fresh.services) this.data.services.set(slug, service);
    for (const timer of this.boundaryTimers.values()) timer.cancel();
    this.boundaryTimers.clear();
    this.keyIndex.clear();
    this.published.clear();
    this.committedAt.clear();
    for (const [slug, service] of fresh.services) {
      const committedAt = committedAtMs.get(slug) ?? this.clock.now();
      this.committedAt.set(slug, committedAt);
      this.indexKeys(slug, service);
      this.published.set(slug, this.computeActive(service, committedAt));
      this.scheduleNextBoundary(slug);
    }
    for (const identity of identitiesBefore) {
      if (!identity.revoked && this.keyIndex.get(identity.key)?.revoked !== false) {
        this.listeners.keyRevoked?.(identity);
      }
    }
    const changed: string[] = [];
    for (const [slug, old] of before) {
      const now = fresh.services.get(slug);
      for (const [name, trust] of old.trusts) {
        if (!isDeepStrictEqual(now?.trusts.get(name), trust)) this.listeners.trustChanged?.(slug, name);
      }
    }
    for (const slug of new Set([...before.keys(), ...fresh.services.keys()])) {
      const same =
        isDeepStrictEqual(before.get(slug), fresh.services.get(slug)) &&
        isDeepStrictEqual(publishedBefore.get(slug), this.published.get(slug));
      if (!same) changed.push(slug);
    }
    if (!isDeepStrictEqual(tenantBefore, this.data.tenant)) this.listeners.tenantChanged?.(this.data.tenant);
    if (changed.length > 0) this.listeners.reloaded?.(changed);
  }

  /** When each service last got a revision (ms since the epoch), for snapshots. */
  lastCommittedAt(): ReadonlyMap<string, number> {
    return this.committedAt;
  }

  /** Services whose flags' `is_active` differs from what was published: a boundary passed with no revision yet. */
  dueBoundaries(): string[] {
    const due: string[] = [];
    for (const [slug, service] of this.data.services) {
      const published = this.published.get(slug)!;
      for (const [key, active] of this.computeActive(service)) {
        if (published.get(key) !== active) {
          due.push(slug);
          break;
        }
      }
    }
    return due;
  }

  /** Commits a revision for the flags of `slug` whose `is_active` turned, if any did. */
  turnBoundaries(slug: string): void {
    this.onBoundary(slug);
  }

  /** The tenant's settings. */
  get tenant(): Readonly<TenantState> {
    return this.data.tenant;
  }

  /** The service with this slug, if any. */
  service(slug: string): ServiceData | undefined {
    return this.data.services.get(slug);
  }

  /** Every slug, in creation order. */
  slugs(): string[] {
    return [...this.data.services.keys()];
  }

  /** Who a key is, if it authenticates for `slug`; undefined for unknown, revoked or another service's keys. */
  authenticate(slug: string, key: string): KeyIdentity | undefined {
    const identity = this.keyIndex.get(hashApiKey(key));
    if (!identity || identity.revoked || identity.slug !== slug) return undefined;
    return identity;
  }

  /** The `is_active` of a flag as last published. */
  isActive(slug: string, flagKey: string): boolean {
    return this.published.get(slug)?.get(flagKey) ?? false;
  }

  /**
   * Creates a service (kind `backend` unless given, in the default project
   * unless given), or changes its kind or project; what is not given stays.
   *
   * @throws NotFoundError for a project that does not exist.
   */
  putService(slug: string, kindGiven: string | undefined, actor: string, projectGiven?: string): number {
    const existing = this.data.services.get(slug);
    const kind = kindGiven ?? existing?.kind ?? 'backend';
    const project = projectGiven ?? existing?.project ?? DEFAULT_PROJECT;
    if (!this.data.projects.has(project)) throw new NotFoundError(`no project named "${project}"`);
    if (!existing) {
      const service: ServiceData = emptyService(kind, project);
      this.data.services.set(slug, service);
      this.published.set(slug, new Map());
      const audit = this.audit({ actor, action: 'service.put', service: slug, key: null, revision: service.revision });
      this.listeners.mutation?.({ type: 'service', slug, kind, project, revision: service.revision, audit });
      return service.revision;
    }
    if (existing.kind === kind && existing.project === project) return existing.revision;
    if (existing.kind === kind) {
      // A move between projects changes who may see the service, not what its clients get.
      existing.project = project;
      const audit = this.audit({ actor, action: 'service.put', service: slug, key: null, revision: null });
      this.listeners.mutation?.({ type: 'service', slug, kind, project, revision: existing.revision, audit });
      return existing.revision;
    }
    existing.kind = kind;
    existing.project = project;
    // Secrets appear or disappear for secret keys when a service becomes, or stops being, frontend.
    return this.commit(
      slug,
      { service: true, configs: EMPTY, flags: EMPTY, secrets: new Set(existing.secrets.keys()) },
      (revision) => ({
        type: 'service',
        slug,
        kind,
        project,
        revision,
        audit: this.audit({ actor, action: 'service.put', service: slug, key: null, revision }),
      }),
    );
  }

  /** Creates a project (a name already taken changes nothing); returns whether it was created. */
  putProject(name: string, actor: string): boolean {
    if (this.data.projects.has(name)) return false;
    const project: ProjectRecord = { created_at: this.isoNow() };
    this.data.projects.set(name, project);
    const audit = this.audit({ actor, action: 'project.put', service: null, key: name, revision: null });
    this.listeners.mutation?.({ type: 'project', name, project, audit });
    return true;
  }

  /** The scoped admin token of this name, if any. */
  token(name: string): Readonly<AdminTokenRecord> | undefined {
    return this.data.tokens.get(name);
  }

  /** The name of the admin token whose hash this is, if any. */
  tokenNameByHash(hash: string): string | undefined {
    for (const [name, token] of this.data.tokens) if (token.hash === hash) return name;
    return undefined;
  }

  /**
   * Records a new scoped admin token (its hash: the token is shown once, by the caller).
   *
   * @throws ConflictError when the name is taken.
   */
  createToken(name: string, hash: string, scope: TokenScope, rights: AdminRight[], actor: string): AdminTokenRecord {
    if (this.data.tokens.has(name)) throw new ConflictError(`an admin token named "${name}" exists: revoke it first`);
    const token: AdminTokenRecord = { hash, scope, rights, created_at: this.isoNow(), last_used_at: null };
    this.data.tokens.set(name, token);
    const audit = this.audit({ actor, action: 'token.create', service: null, key: name, revision: null });
    this.listeners.mutation?.({ type: 'token', name, token, audit });
    return token;
  }

  /** Revokes a scoped admin token at once. @throws NotFoundError for an unknown name. */
  revokeToken(name: string, actor: string): void {
    if (!this.data.tokens.delete(name)) throw new NotFoundError(`no admin token named "${name}"`);
    const audit = this.audit({ actor, action: 'token.revoke', service: null, key: name, revision: null });
    this.listeners.mutation?.({ type: 'token', name, token: null, audit });
  }

  /**
   * Notes that a token was used now: recorded at most once a minute per
   * token, so reading with a token does not make every read a write.
   */
  touchToken(name: string): void {
    const token = this.data.tokens.get(name);
    if (!token) return;
    const now = this.clock.now();
    if (token.last_used_at !== null && now - Date.parse(token.last_used_at) < TOKEN_USE_RESOLUTION_MS) return;
    token.last_used_at = this.isoNow();
    this.listeners.mutation?.({ type: 'token.used', name, last_used_at: token.last_used_at });
  }

  /** Whether the console session whose id hashes to `idHash` was logged out (and has not expired since). */
  sessionEnded(idHash: string): boolean {
    return this.data.access.ended_sessions.has(idHash);
  }

  /** Records a console logout, kept until the session would have expired (`expiresAtMs`). */
  endSession(idHash: string, expiresAtMs: number): void {
    const change = {
      type: 'session.end',
      id_hash: idHash,
      expires_at_ms: expiresAtMs,
      at_ms: this.clock.now(),
    } as const;
    applyStateChange(this.data, change);
    this.listeners.mutation?.(change);
  }

  /** The wrong admin-token guesses recorded for `address` (a hash of the client's address). */
  wrongGuesses(address: string): Readonly<GuessRecord> | undefined {
    return this.data.access.guesses.get(address);
  }

  /** Records `address`'s wrong guesses after one more; those older than `forgetBeforeMs` are dropped. */
  recordWrongGuess(address: string, guesses: GuessRecord, forgetBeforeMs: number): void {
    const change = { type: 'guess.wrong', address, guesses: { ...guesses }, forget_before_ms: forgetBeforeMs } as const;
    applyStateChange(this.data, change);
    this.listeners.mutation?.(change);
  }

  /** Issues a new key of the given type for a service. */
  createKey(slug: string, type: 'secret' | 'public', actor: string): string {
    const service = this.requireService(slug);
    const key = `${type === 'secret' ? 'svs' : 'svp'}_${slug.replace(/-/g, '_')}_${randomBytes(18).toString('base64url')}`;
    const record = apiKeyRecord(key);
    service.keys.push(record);
    this.keyIndex.set(record.hash, { slug, key: record.hash, type, revoked: false });
    const audit = this.audit({ actor, action: 'key.create', service: slug, key: record.hint, revision: null });
    this.listeners.mutation?.({ type: 'key', slug, key: storedApiKey(record), revoked: false, audit });
    return key;
  }

  /**
   * Revokes a key of a service, named by the key itself or by its hash (64
   * hex digits, for keys this process never saw); it answers 401 from now on
   * and its open streams end.
   */
  revokeKey(slug: string, key: string, actor: string): number {
    const service = this.requireService(slug);
    const hash = /^[0-9a-f]{64}$/.test(key) && this.keyIndex.has(key) ? key : hashApiKey(key);
    const identity = this.keyIndex.get(hash);
    if (!identity || identity.slug !== slug) throw new NotFoundError(`service "${slug}" has no such key`);
    if (!identity.revoked) {
      identity.revoked = true;
      const record = service.keys.find((k) => k.hash === hash)!;
      service.keys = service.keys.filter((k) => k.hash !== hash);
      service.revoked_keys.push(record);
      const audit = this.audit({ actor, action: 'key.revoke', service: slug, key: record.hint, revision: null });
      this.listeners.mutation?.({ type: 'key', slug, key: storedApiKey(record), revoked: true, audit });
      this.listeners.keyRevoked?.(identity);
    }
    return service.revision;
  }

  /** The service's workload-identity trust of this name, if any. */
  trust(slug: string, name: string): TrustDefinition | undefined {
    return this.data.services.get(slug)?.trusts.get(name);
  }

  /**
   * Creates or replaces a workload-identity trust. Replacing one ends the
   * sessions it issued (their key type or subjects may no longer hold).
   */
  putTrust(slug: string, name: string, trust: TrustDefinition, actor: string): TrustDefinition {
    const service = this.requireService(slug);
    const replaced = service.trusts.has(name);
    service.trusts.set(name, trust);
    const audit = this.audit({ actor, action: 'trust.put', service: slug, key: name, revision: null });
    this.listeners.mutation?.({ type: 'trust', slug, name, trust, audit });
    if (replaced) this.listeners.trustChanged?.(slug, name);
    return trust;
  }

  /** Deletes a trust; the sessions it issued answer 401 from now on. */
  deleteTrust(slug: string, name: string, actor: string): void {
    const service = this.requireService(slug);
    if (!service.trusts.delete(name)) throw new NotFoundError(`service "${slug}" has no trust "${name}"`);
    const audit = this.audit({ actor, action: 'trust.delete', service: slug, key: name, revision: null });
    this.listeners.mutation?.({ type: 'trust', slug, name, trust: null, audit });
    this.listeners.trustChanged?.(slug, name);
  }

  /** Sets a config value. */
  setConfig(slug: string, key: string, value: ConfigValue, actor: string): number {
    const service = this.requireService(slug);
    const old = service.configs.get(key);
    if (service.configs.has(key) && jsonEqual(old, value)) return service.revision;
    service.configs.set(key, value);
    return this.commit(slug, { service: false, configs: new Set([key]), flags: EMPTY, secrets: EMPTY }, (revision) => ({
      type: 'config',
      slug,
      revision,
      key,
      value,
      audit: this.audit({
        actor,
        action: 'config.set',
        service: slug,
        key,
        revision,
        ...(old === undefined ? {} : { old }),
        new: value,
      }),
    }));
  }

  /** Deletes a config value. */
  deleteConfig(slug: string, key: string, actor: string): number {
    const service = this.requireService(slug);
    const old = service.configs.get(key);
    if (!service.configs.delete(key)) throw new NotFoundError(`service "${slug}" has no config "${key}"`);
    return this.commit(slug, { service: false, configs: new Set([key]), flags: EMPTY, secrets: EMPTY }, (revision) => ({
      type: 'config.delete',
      slug,
      revision,
      key,
      audit: this.audit({ actor, action: 'config.delete', service: slug, key, revision, old: old! }),
    }));
  }

  /** Creates or replaces a flag; its `is_active` and schedule are recomputed. */
  setFlag(slug: string, key: string, flag: FlagDefinition, actor: string): number {
    const service = this.requireService(slug);
    const old = service.flags.get(key);
    if (old !== undefined && jsonEqual(old, flag)) return service.revision;
    service.flags.set(key, flag);
    this.published.get(slug)!.set(key, computeIsActive(flag, this.clock.now()));
    return this.commitFlag(slug, key, old, flag, actor);
  }

  /** Deletes a flag. */
  deleteFlag(slug: string, key: string, actor: string): number {
    const service = this.requireService(slug);
    const old = service.flags.get(key);
    if (!service.flags.delete(key)) throw new NotFoundError(`service "${slug}" has no flag "${key}"`);
    this.published.get(slug)!.delete(key);
    return this.commitFlag(slug, key, old, null, actor);
  }

  /** Commits a flag set (or deleted: `null`), then re-arms the schedule timer for the next boundary. */
  private commitFlag(
    slug: string,
    key: string,
    old: FlagDefinition | undefined,
    flag: FlagDefinition | null,
    actor: string,
  ): number {
    const revision = this.commit(
      slug,
      { service: false, configs: EMPTY, flags: new Set([key]), secrets: EMPTY },
      (r) => ({
        type: 'flag',
        slug,
        revision: r,
        key,
        flag,
        audit: this.audit({
          actor,
          action: flag === null ? 'flag.delete' : 'flag.set',
          service: slug,
          key,
          revision: r,
          ...(old === undefined ? {} : { old: flagJson(old) }),
          ...(flag === null ? {} : { new: flagJson(flag) }),
        }),
      }),
    );
    this.scheduleNextBoundary(slug);
    return revision;
  }

  /**
   * Adds a new version of a secret (creating the secret if needed). Setting
   * the value and type the current version already holds changes nothing and
   * answers that version, as a config set to its value does: a write passed
   * on again (a proxy's retry, a client's) makes no second version.
   */
  setSecret(slug: string, key: string, value: string, type: SecretType, actor: string): SecretWriteOutcome {
    const service = this.requireService(slug);
    const record = service.secrets.get(key);
    const current = record ? currentVersion(record) : undefined;
    if (record && current!.value === value && record.type === type) {
      return { revision: service.revision, key, type, version: current!.version };
    }
    const highest = current?.version ?? 0;
    const version = Math.max(service.next_versions.get(key) ?? 1, highest + 1);
    const entry = { version, value, created_at: this.isoNow() };
    if (record) {
      record.type = type;
      record.versions.push(entry);
    } else {
      service.secrets.set(key, { type, versions: [entry] });
    }
    service.next_versions.set(key, version + 1);
    const revision = this.commit(
      slug,
      { service: false, configs: EMPTY, flags: EMPTY, secrets: new Set([key]) },
      (r) => ({
        type: 'secret.version',
        slug,
        revision: r,
        key,
        secret_type: type,
        version: entry,
        next_version: version + 1,
        audit: this.audit({ actor, action: 'secret.set', service: slug, key, revision: r, version }),
      }),
    );
    return { revision, key, type, version };
  }

  /** Deletes every version of a secret. */
  deleteSecret(slug: string, key: string, actor: string): number {
    const service = this.requireService(slug);
    if (!service.secrets.delete(key)) throw new NotFoundError(`service "${slug}" has no secret "${key}"`);
    return this.commit(slug, { service: false, configs: EMPTY, flags: EMPTY, secrets: new Set([key]) }, (revision) => ({
      type: 'secret.delete',
      slug,
      revision,
      key,
      audit: this.audit({ actor, action: 'secret.delete', service: slug, key, revision, version: null }),
    }));
  }

  /** Deletes one version of a secret; deleting the last one deletes the secret. */
  deleteSecretVersion(slug: string, key: string, version: number, actor: string): number {
    const service = this.requireService(slug);
    const record = service.secrets.get(key);
    if (!record) throw new NotFoundError(`service "${slug}" has no secret "${key}"`);
    const index = record.versions.findIndex((v) => v.version === version);
    if (index === -1) throw new NotFoundError(`secret "${key}" has no version ${version}`);
    record.versions.splice(index, 1);
    if (record.versions.length === 0) service.secrets.delete(key);
    return this.commit(slug, { service: false, configs: EMPTY, flags: EMPTY, secrets: new Set([key]) }, (revision) => ({
      type: 'secret.version.delete',
      slug,
      revision,
      key,
      version,
      audit: this.audit({ actor, action: 'secret.version.delete', service: slug, key, revision, version }),
    }));
  }

  /**
   * Changes any of the tenant's settings. Turning the A/B add-on on or off
   * changes every A/B answer (PROTOCOL §7), so each service with flags moves
   * to a new revision whose patch carries every flag's record.
   */
  setTenant(patch: Partial<TenantState>, actor: string): Readonly<TenantState> {
    const addonTurned = patch.ab_addon !== undefined && patch.ab_addon !== this.data.tenant.ab_addon;
    const old = { ...this.data.tenant };
    Object.assign(this.data.tenant, patch);
    const audit = this.audit({
      actor,
      action: 'tenant.set',
      service: null,
      key: null,
      revision: null,
      old: { ...old },
      new: { ...this.data.tenant },
    });
    this.listeners.mutation?.({ type: 'tenant', tenant: { ...this.data.tenant }, audit });
    this.listeners.tenantChanged?.(this.data.tenant);
    if (addonTurned) {
      for (const [slug, service] of this.data.services) {
        if (service.flags.size === 0) continue;
        const flags = new Set(service.flags.keys());
        this.commit(slug, { service: false, configs: EMPTY, flags, secrets: EMPTY }, (revision) => ({
          type: 'revision',
          slug,
          revision,
        }));
      }
    }
    return this.data.tenant;
  }

  /**
   * Records a change made beside the store's data (a sealing key, applied
   * by the codec), with its audit entry, so it is persisted and audited as
   * any other.
   */
  recordChange(change: StateChange, fields: Omit<AuditFields, 'at'>): AuditRecord {
    const audit = this.audit(fields);
    this.listeners.mutation?.({ ...change, audit });
    return audit;
  }

  /** Whether the tenant's invoices are overdue by more than 14 days. */
  billingOverdue(): boolean {
    return this.data.tenant.overdue_days > 14;
  }

  /** The end of the tenant's quarantine if it is in force now. */
  quarantinedUntil(): string | undefined {
    const until = this.data.tenant.quarantined_until;
    return until !== null && Date.parse(until) > this.clock.now() ? until : undefined;
  }

  /** Stops the flag schedule timers. */
  close(): void {
    this.closed = true;
    for (const timer of this.boundaryTimers.values()) timer.cancel();
    this.boundaryTimers.clear();
  }

  /** The service with this slug. @throws NotFoundError when there is none. */
  requireService(slug: string): ServiceData {
    const service = this.data.services.get(slug);
    if (!service) throw new NotFoundError(`no service named "${slug}"`);
    return service;
  }

  /** Moves the service to its next revision, records `record(revision)`, then tells the change listener. */
  private commit(slug: string, changes: ChangeSet, record: (revision: number) => StateChange): number {
    const service = this.data.services.get(slug)!;
    const base = service.revision;
    service.revision = base + 1;
    const committedAtMs = this.clock.now();
    this.committedAt.set(slug, committedAtMs);
    this.listeners.mutation?.(record(service.revision));
    this.listeners.change?.({ slug, base, revision: service.revision, changes, committedAtMs });
    return service.revision;
  }

  /** Chains the audit entry of a change being made; the caller puts it in the change's record. */
  private audit(fields: Omit<AuditFields, 'at'>): AuditRecord {
    const entry = chainAuditEntry(
      this.data.audit[this.data.audit.length - 1],
      { at: this.isoNow(), ...fields },
      this.auditKey(),
    );
    this.data.audit.push(entry);
    return entry;
  }

  private indexKeys(slug: string, service: ServiceData): void {
    for (const { hash, type } of service.keys) this.keyIndex.set(hash, { slug, key: hash, type, revoked: false });
    for (const { hash, type } of service.revoked_keys)
      this.keyIndex.set(hash, { slug, key: hash, type, revoked: true });
  }

  private computeActive(service: ServiceData, at?: number): Map<string, boolean> {
    const now = at ?? this.clock.now();
    const active = new Map<string, boolean>();
    for (const [key, flag] of service.flags) active.set(key, computeIsActive(flag, now));
    return active;
  }

  /**
   * Arms one timer for the service's next `starts_at`/`ends_at` boundary, so a
   * flag turns at that moment with a revision and a patch, and nothing polls.
   */
  private scheduleNextBoundary(slug: string): void {
    this.boundaryTimers.get(slug)?.cancel();
    this.boundaryTimers.delete(slug);
    if (this.closed) return;
    const service = this.data.services.get(slug)!;
    const now = this.clock.now();
    let next = Infinity;
    for (const flag of service.flags.values()) {
      for (const boundary of [flag.starts_at, flag.ends_at]) {
        if (boundary === null) continue;
        const at = Date.parse(boundary);
        if (at > now && at < next) next = at;
      }
    }
    if (next === Infinity) return;
    this.boundaryTimers.set(
      slug,
      this.clock.setTimer(() => {
        this.boundaryTimers.delete(slug);
        if (this.listeners.boundaryDue) this.listeners.boundaryDue(slug, () => this.onBoundary(slug));
        else this.onBoundary(slug);
      }, next - now),
    );
  }

  private onBoundary(slug: string): void {
    this.boundaryTimers.delete(slug);
    const service = this.data.services.get(slug);
    if (!service || this.closed) return;
    const published = this.published.get(slug)!;
    const fresh = this.computeActive(service);
    const turned = new Set<string>();
    for (const [key, active] of fresh) {
      if (published.get(key) !== active) turned.add(key);
    }
    this.published.set(slug, fresh);
    if (turned.size > 0) {
      this.commit(slug, { service: false, configs: EMPTY, flags: turned, secrets: EMPTY }, (revision) => ({
        type: 'revision',
        slug,
        revision,
      }));
    }
    this.scheduleNextBoundary(slug);
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString().replace('.000Z', 'Z');
  }
}

/** A flag as the audit records it: its JSON form, `ab` only when it has one. */
function flagJson(flag: FlagDefinition): JsonValue {
  const json: { [key: string]: JsonValue } = {
    is_enabled: flag.is_enabled,
    starts_at: flag.starts_at,
    ends_at: flag.ends_at,
  };
  if (flag.ab !== undefined) json['ab'] = JSON.parse(JSON.stringify(flag.ab)) as JsonValue;
  return json;
}
