import { createHash } from 'node:crypto';
import { dictionary } from './dictionary.js';
import type { ConfigValue, ServiceData } from './model.js';
import { currentVersion, type Store, type CommittedRevision } from './store.js';
import type { CommittedService } from './change-log.js';

/** A service as reads see it: its data and whether each flag is active. */
export interface ServiceView {
  readonly service: ServiceData;
  isActive(flagKey: string): boolean;
}

/** Which view of a service a caller gets: secret keys see secrets, public keys never do. */
export type Audience = 'secret' | 'public';

/** A flag as the wire shows it (PROTOCOL §5). */
export interface FlagView {
  is_enabled: boolean;
  starts_at: string | null;
  ends_at: string | null;
  is_active: boolean;
}

/** A secret as the wire shows it (PROTOCOL §5). */
export interface SecretView {
  type: 'text' | 'file';
  value: string;
  version: number;
}

/** The `data` of a `patch` event (PROTOCOL §6). */
export interface PatchBody {
  base: number;
  revision: number;
  service?: { slug: string; kind: string };
  configs?: Record<string, ConfigValue>;
  flags?: Record<string, FlagView>;
  secrets?: Record<string, SecretView>;
  deleted?: { configs?: string[]; flags?: string[]; secrets?: string[] };
  /** When the change was committed, RFC 3339 with milliseconds, on the server's clock. */
  committed_at: string;
}

/** A rendered `/v1/sync` answer. */
export interface RenderedSnapshot {
  readonly revision: number;
  readonly body: Buffer;
  /** Strong validator over exactly `body`. */
  readonly etag: string;
}

/**
 * Renders snapshots and patches for each audience. A snapshot is rendered
 * once per revision and audience and then served from memory, so the 304 and
 * 200 paths cost a lookup and a write.
 */
export class SnapshotRenderer {
  private readonly cache = new Map<string, RenderedSnapshot>();

  /**
   * @param committed - where a write in flight changed a service in memory ahead of its commit, the service as
   * last committed (see `ChangeLog.committedService`): reads render that, so they never show, nor wait for, a
   * write that may still be undone.
   */
  constructor(
    private readonly store: Store,
    private readonly committed: (slug: string) => CommittedService | undefined = () => undefined,
  ) {}

  /** `slug` as reads see it: as last committed (the store's state unless a write in flight changed it). */
  view(slug: string): ServiceView {
    const committed = this.committed(slug);
    if (committed === undefined) {
      return { service: this.store.service(slug)!, isActive: (key) => this.store.isActive(slug, key) };
    }
    return { service: committed.service, isActive: (key) => committed.published.get(key) ?? false };
  }

  /** The snapshot of `slug` for `audience` at the revision last committed. */
  snapshot(slug: string, audience: Audience): RenderedSnapshot {
    const view = this.view(slug);
    const service = view.service;
    const cacheKey = `${audience}\u0000${slug}`;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.revision === service.revision) return cached;
    const body = Buffer.from(JSON.stringify(this.snapshotBody(slug, view, audience)));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 43)}"`;
    const rendered: RenderedSnapshot = { revision: service.revision, body, etag };
    this.cache.set(cacheKey, rendered);
    return rendered;
  }

  /** Drops what was rendered for `slug`: its state was replaced at the same revision (a reload from the store). */
  forget(slug: string): void {
    for (const key of this.cache.keys()) if (key.endsWith(`\u0000${slug}`)) this.cache.delete(key);
  }

  /** The patch that takes an `audience` client from `change.base` to `change.revision`. */
  patch(change: CommittedRevision, audience: Audience): PatchBody {
    const service = this.store.service(change.slug)!;
    const patch: PatchBody = {
      base: change.base,
      revision: change.revision,
      committed_at: new Date(change.committedAtMs).toISOString(),
    };
    const deleted: NonNullable<PatchBody['deleted']> = {};
    const { changes } = change;
    if (changes.service) patch.service = { slug: change.slug, kind: service.kind };

    for (const key of changes.configs) {
      if (service.configs.has(key)) (patch.configs ??= dictionary())[key] = service.configs.get(key)!;
      else (deleted.configs ??= []).push(key);
    }
    const view: ServiceView = { service, isActive: (key) => this.store.isActive(change.slug, key) };
    for (const key of changes.flags) {
      const flag = flagView(view, key);
      if (flag) (patch.flags ??= dictionary())[key] = flag;
      else (deleted.flags ??= []).push(key);
    }
    // A frontend service serves no secrets; only the switch to or from frontend concerns secret keys then.
    if (audience === 'secret' && (service.kind !== 'frontend' || changes.service)) {
      const visible = service.kind !== 'frontend';
      for (const key of changes.secrets) {
        const secret = visible ? this.secretView(service, key) : undefined;
        if (secret) (patch.secrets ??= dictionary())[key] = secret;
        else (deleted.secrets ??= []).push(key);
      }
    }
    if (deleted.configs || deleted.flags || deleted.secrets) patch.deleted = deleted;
    return patch;
  }

  private snapshotBody(slug: string, view: ServiceView, audience: Audience): Record<string, unknown> {
    const service = view.service;
    const configs = dictionary<ConfigValue>();
    for (const [key, value] of service.configs) configs[key] = value;
    const flags = dictionary<FlagView>();
    for (const key of service.flags.keys()) flags[key] = flagView(view, key)!;
    const body: Record<string, unknown> = {
      service: { slug, kind: service.kind },
      revision: service.revision,
      configs,
      flags,
    };
    if (audience === 'secret' && service.kind !== 'frontend') {
      const secrets = dictionary<SecretView>();
      for (const key of service.secrets.keys()) secrets[key] = this.secretView(service, key)!;
      body['secrets'] = secrets;
    }
    return body;
  }

  private secretView(service: ServiceData, key: string): SecretView | undefined {
    const record = service.secrets.get(key);
    if (!record) return undefined;
    const current = currentVersion(record);
    return { type: record.type, value: current.value, version: current.version };
  }
}

function flagView(view: ServiceView, key: string): FlagView | undefined {
  const flag = view.service.flags.get(key);
  if (!flag) return undefined;
  return {
    is_enabled: flag.is_enabled,
    starts_at: flag.starts_at,
    ends_at: flag.ends_at,
    is_active: view.isActive(key),
  };
}
