/**
 * The shapes the {@link Store} and its aggregates share: what a committed
 * revision carries, who a key is, what a write answers, what the store tells
 * its listeners.
 *
 * @module
 */
import type { SecretWriteResult } from '@vane/common';
import type { AuditChainKey } from './audit-chain.js';
import type { ServerData, ServiceData, TenantState } from './model.js';
import type { StateChange } from './state-change.js';

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
