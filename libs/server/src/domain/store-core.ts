/**
 * The core of the store, shared by its aggregates.
 *
 * @module
 */
import type { CancellableTimer, TimerClock } from './clock.js';
import { chainAuditEntry, type AuditChainKey, type AuditFields } from './audit-chain.js';
import type { AuditRecord, FlagDefinition, SecretRecord, ServerData, ServiceData } from './model.js';
import type { StateChange } from './state-change.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { ChangeSet, KeyIdentity, StoreListeners, StoreOptions } from './store-types.js';

/** The empty set of names, for the members of a ChangeSet a change does not touch. */
export const EMPTY: ReadonlySet<string> = new Set();

/** `is_active` exactly as PROTOCOL §5 defines it. */
export function computeIsActive(flag: FlagDefinition, nowMs: number): boolean {
  if (!flag.is_enabled) return false;
  if (flag.starts_at !== null && nowMs < Date.parse(flag.starts_at)) return false;
  if (flag.ends_at !== null && nowMs >= Date.parse(flag.ends_at)) return false;
  return true;
}

/** The value a secret serves: its highest remaining version. */
export function currentVersion(record: SecretRecord): SecretRecord['versions'][number] {
  return record.versions[record.versions.length - 1]!;
}

/**
 * What every aggregate of the `Store` shares: the data, the clock,
 * the listeners, the key index, the published `is_active` of each flag and
 * the schedule that turns them, and the one way to commit a revision and
 * chain its audit entry. Internal to the store: its members are the
 * aggregates' to use; the store's callers reach them through `Store`.
 */
export class StoreCore {
  /** Who each key is, by its hash: active and revoked keys of every service. */
  readonly keyIndex = new Map<string, KeyIdentity>();

  /** The `is_active` each flag was last published with, per service. */
  readonly published = new Map<string, Map<string, boolean>>();

  /** The timer of each service's next flag schedule boundary. */
  readonly boundaryTimers = new Map<string, CancellableTimer>();

  /** When each service last got a revision (ms since the epoch). */
  readonly committedAt = new Map<string, number>();

  /** Set by {@link close}: no timer is armed any more. */
  closed = false;

  /** The key new audit entries are chained with, read at each change. */
  readonly auditKey: () => AuditChainKey | undefined;

  constructor(
    readonly data: ServerData,
    readonly clock: TimerClock,
    readonly listeners: StoreListeners = {},
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

  /** The service with this slug, if any. */
  service(slug: string): ServiceData | undefined {
    return this.data.services.get(slug);
  }

  /** Every slug, in creation order. */
  slugs(): string[] {
    return [...this.data.services.keys()];
  }

  /** The service with this slug. @throws NotFoundError when there is none. */
  requireService(slug: string): ServiceData {
    const service = this.data.services.get(slug);
    if (!service) throw new NotFoundError(`no service named "${slug}"`);
    return service;
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

  /** Stops the flag schedule timers. */
  close(): void {
    this.closed = true;
    for (const timer of this.boundaryTimers.values()) timer.cancel();
    this.boundaryTimers.clear();
  }

  /** Moves the service to its next revision, records `record(revision)`, then tells the change listener. */
  commit(slug: string, changes: ChangeSet, record: (revision: number) => StateChange): number {
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
  audit(fields: Omit<AuditFields, 'at'>): AuditRecord {
    const entry = chainAuditEntry(
      this.data.audit[this.data.audit.length - 1],
      { at: this.isoNow(), ...fields },
      this.auditKey(),
    );
    this.data.audit.push(entry);
    return entry;
  }

  indexKeys(slug: string, service: ServiceData): void {
    for (const { hash, type } of service.keys) this.keyIndex.set(hash, { slug, key: hash, type, revoked: false });
    for (const { hash, type } of service.revoked_keys)
      this.keyIndex.set(hash, { slug, key: hash, type, revoked: true });
  }

  computeActive(service: ServiceData, at?: number): Map<string, boolean> {
    const now = at ?? this.clock.now();
    const active = new Map<string, boolean>();
    for (const [key, flag] of service.flags) active.set(key, computeIsActive(flag, now));
    return active;
  }

  /**
   * Arms one timer for the service's next `starts_at`/`ends_at` boundary, so a
   * flag turns at that moment with a revision and a patch, and nothing polls.
   */
  scheduleNextBoundary(slug: string): void {
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

  onBoundary(slug: string): void {
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

  isoNow(): string {
    return new Date(this.clock.now()).toISOString().replace('.000Z', 'Z');
  }
}
