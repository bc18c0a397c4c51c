/**
 * The store's services aggregate: the services themselves: their creation and kind, and the changes that replace them wholesale (another replica's commit, an undo, a reload).
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_PROJECT } from './model.js';
import type { SecretRecord, ServerData, ServiceData } from './model.js';
import { applyStateChange, emptyService, type StateChange } from './state-change.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { EMPTY, type StoreCore, computeIsActive } from './store-core.js';
import type { ChangeSet, SavedServices } from './store-types.js';

/** The services themselves: their creation and kind, and the changes that replace them wholesale (another replica's commit, an undo, a reload). */
export class StoreServices {
  constructor(private readonly core: StoreCore) {}

  /**
   * Creates a service (kind `backend` unless given, in the default project
   * unless given), or changes its kind or project; what is not given stays.
   *
   * @throws NotFoundError for a project that does not exist.
   */
  putService(slug: string, kindGiven: string | undefined, actor: string, projectGiven?: string): number {
    const existing = this.core.data.services.get(slug);
    const kind = kindGiven ?? existing?.kind ?? 'backend';
    const project = projectGiven ?? existing?.project ?? DEFAULT_PROJECT;
    if (!this.core.data.projects.has(project)) throw new NotFoundError(`no project named "${project}"`);
    if (!existing) {
      const service: ServiceData = emptyService(kind, project);
      this.core.data.services.set(slug, service);
      this.core.published.set(slug, new Map());
      const audit = this.core.audit({
        actor,
        action: 'service.put',
        service: slug,
        key: null,
        revision: service.revision,
      });
      this.core.listeners.mutation?.({ type: 'service', slug, kind, project, revision: service.revision, audit });
      return service.revision;
    }
    if (existing.kind === kind && existing.project === project) return existing.revision;
    if (existing.kind === kind) {
      // A move between projects changes who may see the service, not what its clients get.
      existing.project = project;
      const audit = this.core.audit({ actor, action: 'service.put', service: slug, key: null, revision: null });
      this.core.listeners.mutation?.({ type: 'service', slug, kind, project, revision: existing.revision, audit });
      return existing.revision;
    }
    existing.kind = kind;
    existing.project = project;
    // Secrets appear or disappear for secret keys when a service becomes, or stops being, frontend.
    return this.core.commit(
      slug,
      { service: true, configs: EMPTY, flags: EMPTY, secrets: new Set(existing.secrets.keys()) },
      (revision) => ({
        type: 'service',
        slug,
        kind,
        project,
        revision,
        audit: this.core.audit({ actor, action: 'service.put', service: slug, key: null, revision }),
      }),
    );
  }

  /**
   * Applies a change another replica committed, as the journal replays one,
   * and tells the listeners as if it were made here: the patch of `changes`
   * is rendered from the data as this revision left it. A flag's `is_active`
   * is computed at `committedAtMs`, as the writer computed it.
   */
  applyCommitted(change: StateChange, changes: ChangeSet | null, committedAtMs: number): void {
    const slug = 'slug' in change && typeof change.slug === 'string' ? change.slug : undefined;
    const before = slug === undefined ? undefined : this.core.data.services.get(slug);
    applyStateChange(this.core.data, change);
    this.core.listeners.mutation?.(change);
    if (slug === undefined || !('slug' in change)) {
      if (change.type === 'tenant') this.core.listeners.tenantChanged?.(this.core.data.tenant);
      return;
    }
    const service = this.core.data.services.get(change.slug)!;
    if (before === undefined) this.core.published.set(change.slug, new Map());
    if (change.type === 'key') {
      this.core.indexKeys(change.slug, service);
      const identity = this.core.keyIndex.get(typeof change.key === 'string' ? change.key : change.key.hash);
      if (change.revoked && identity) this.core.listeners.keyRevoked?.(identity);
      return;
    }
    if (change.type === 'trust') {
      this.core.listeners.trustChanged?.(change.slug, change.name);
      return;
    }
    if (changes === null || !('revision' in change)) return;
    const published = this.core.published.get(change.slug)!;
    for (const key of changes.flags) {
      const flag = service.flags.get(key);
      if (flag) published.set(key, computeIsActive(flag, committedAtMs));
      else published.delete(key);
    }
    if (changes.flags.size > 0) this.core.scheduleNextBoundary(change.slug);
    this.core.committedAt.set(change.slug, committedAtMs);
    this.core.listeners.change?.({
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
    const names = slugs === 'all' ? [...this.core.data.services.keys()] : slugs;
    const services = new Map<string, { service: ServiceData; published: Map<string, boolean> } | undefined>();
    for (const slug of names) {
      const service = this.core.data.services.get(slug);
      services.set(
        slug,
        service && { service: copyForUndo(service), published: new Map(this.core.published.get(slug)) },
      );
    }
    return {
      tenant: { ...this.core.data.tenant },
      auditLength: this.core.data.audit.length,
      projects: structuredClone(this.core.data.projects),
      tokens: structuredClone(this.core.data.tokens),
      services,
    };
  }

  /** Puts back what {@link saveServices} kept; services created since, among those named, are removed. */
  restoreServices(saved: SavedServices): void {
    Object.assign(this.core.data.tenant, saved.tenant);
    this.core.data.audit.length = saved.auditLength;
    this.core.data.projects = structuredClone(saved.projects);
    this.core.data.tokens = structuredClone(saved.tokens);
    for (const [slug, kept] of saved.services) {
      for (const [key, identity] of this.core.keyIndex) if (identity.slug === slug) this.core.keyIndex.delete(key);
      if (kept === undefined) {
        this.core.data.services.delete(slug);
        this.core.published.delete(slug);
        this.core.boundaryTimers.get(slug)?.cancel();
        this.core.boundaryTimers.delete(slug);
        continue;
      }
      this.core.data.services.set(slug, kept.service);
      this.core.published.set(slug, kept.published);
      this.core.indexKeys(slug, kept.service);
      this.core.scheduleNextBoundary(slug);
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
    const before = new Map(this.core.data.services);
    const publishedBefore = new Map(this.core.published);
    const tenantBefore = { ...this.core.data.tenant };
    const identitiesBefore = [...this.core.keyIndex.values()];
    Object.assign(this.core.data.tenant, fresh.tenant);
    this.core.data.audit.splice(0, this.core.data.audit.length, ...fresh.audit);
    this.core.data.projects = fresh.projects;
    this.core.data.tokens = fresh.tokens;
    this.core.data.services.clear();
    for (const [slug, service] of fresh.services) this.core.data.services.set(slug, service);
    for (const timer of this.core.boundaryTimers.values()) timer.cancel();
    this.core.boundaryTimers.clear();
    this.core.keyIndex.clear();
    this.core.published.clear();
    this.core.committedAt.clear();
    for (const [slug, service] of fresh.services) {
      const committedAt = committedAtMs.get(slug) ?? this.core.clock.now();
      this.core.committedAt.set(slug, committedAt);
      this.core.indexKeys(slug, service);
      this.core.published.set(slug, this.core.computeActive(service, committedAt));
      this.core.scheduleNextBoundary(slug);
    }
    for (const identity of identitiesBefore) {
      if (!identity.revoked && this.core.keyIndex.get(identity.key)?.revoked !== false) {
        this.core.listeners.keyRevoked?.(identity);
      }
    }
    const changed: string[] = [];
    for (const [slug, old] of before) {
      const now = fresh.services.get(slug);
      for (const [name, trust] of old.trusts) {
        if (!isDeepStrictEqual(now?.trusts.get(name), trust)) this.core.listeners.trustChanged?.(slug, name);
      }
    }
    for (const slug of new Set([...before.keys(), ...fresh.services.keys()])) {
      const same =
        isDeepStrictEqual(before.get(slug), fresh.services.get(slug)) &&
        isDeepStrictEqual(publishedBefore.get(slug), this.core.published.get(slug));
      if (!same) changed.push(slug);
    }
    if (!isDeepStrictEqual(tenantBefore, this.core.data.tenant))
      this.core.listeners.tenantChanged?.(this.core.data.tenant);
    if (changed.length > 0) this.core.listeners.reloaded?.(changed);
  }
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
