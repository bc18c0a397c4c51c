/**
 * A running server as its starter holds it: its addresses, its keys, its
 * in-process admin and its end.
 *
 * @module
 */
import type { AuditEntry, ConfigValue, TenantState } from '../domain/model.js';
import type { SecretWriteOutcome } from '../domain/store.js';
import type { StreamStats } from '../domain/stream-hub.js';
import type { LocalReplica } from '../fleet/fleet-view.js';
import type { ReadinessCheck, ReadinessReport } from '../observability/readiness.js';
import type { Registry } from 'prom-client';
import type { VaneServerFlagInput, VaneServerFlagPatch, VaneServerTrustInput } from './server-inputs.js';

/** A running server's Prometheus metrics, for an app that serves or merges them itself. */
export interface VaneServerMetrics {
  /** The prom-client registry holding them, one per server (merge it into the app's with `Registry.merge`). */
  readonly registry: Registry;
  /** What `/metrics` answers: the text exposition and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** The checks of a running server's `/readyz`. */
export interface VaneServerReadiness {
  /** Adds a check of the app's own (`/readyz` answers 200 only while every check passes); returns its removal. */
  add(check: ReadinessCheck): () => void;
  /** Runs every check, as `/readyz` does. Never rejects. */
  report(): Promise<ReadinessReport>;
  /** Whether the server is draining (`/readyz` is false for good). */
  readonly draining: boolean;
}

/** Changes the local server's data in process, as the admin API would; each returns at once. */
export interface VaneServerAdmin {
  /** Creates a service (kind `backend`, project `default` unless given) or changes its kind or project; returns its revision. */
  putService(slug: string, service?: { kind?: string; project?: string }): number;
  /** Creates a project (services live in one; `default` always exists); returns whether it is new. */
  putProject(name: string): boolean;
  /** Issues a new key and returns it. */
  createKey(slug: string, type: 'secret' | 'public'): string;
  /** Revokes a key; its open streams end. */
  revokeKey(slug: string, key: string): number;
  /** Sets a config value; returns the new revision. */
  setConfig(slug: string, key: string, value: ConfigValue): number;
  /** Deletes a config value; returns the new revision. */
  deleteConfig(slug: string, key: string): number;
  /**
   * Creates or replaces a flag: members left out take their defaults (no
   * schedule, no A/B rule). Returns the new revision.
   */
  setFlag(slug: string, key: string, flag: VaneServerFlagInput): number;
  /**
   * Changes only the members of an existing flag that `patch` names
   * (`ab: null` removes the rule, a `null` schedule end removes that end);
   * returns the new revision. Throws a `NotFoundError` for an unknown flag.
   */
  patchFlag(slug: string, key: string, patch: VaneServerFlagPatch): number;
  /** Deletes a flag; returns the new revision. */
  deleteFlag(slug: string, key: string): number;
  /** Adds a secret version. */
  setSecret(slug: string, key: string, value: string, type?: 'text' | 'file'): SecretWriteOutcome;
  /** Deletes every version of a secret; returns the new revision. */
  deleteSecret(slug: string, key: string): number;
  /** Deletes one version of a secret; returns the new revision. */
  deleteSecretVersion(slug: string, key: string, version: number): number;
  /** Changes the tenant's billing, add-on, quarantine or rate-limit settings. */
  setTenant(tenant: Partial<TenantState>): Readonly<TenantState>;
  /** The secret audit trail of a service (never values). */
  audit(slug: string): readonly AuditEntry[];
  /** Creates or replaces a workload-identity trust; replacing one ends the sessions it issued. */
  putTrust(slug: string, name: string, trust: VaneServerTrustInput): void;
  /** Deletes a trust; the sessions it issued answer 401 from now on. */
  deleteTrust(slug: string, name: string): void;
}

/** One service as {@link VaneServer.services} lists it. */
export interface VaneServiceSummary {
  slug: string;
  kind: string;
  revision: number;
  /** Active keys, secret and public, that this process knows in full (from the seed, or created since it started). */
  keys: string[];
  /** Every active key redacted (`svs_…abcd`), known in full here or not: what the start lines print. */
  keyHints: string[];
}

/** A running local server. */
export interface VaneServer {
  /** `http://<host>:<port>`: the admin API's address. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The admin API's bearer token. */
  readonly adminToken: string;
  /** In-process admin operations. */
  readonly admin: VaneServerAdmin;
  /** The service's `{base_url}`: `http://<slug>.localhost:<port>`. */
  baseUrl(slug: string): string;
  /** The service's first active secret key. */
  secretKey(slug: string): string;
  /** The service's first active public key. */
  publicKey(slug: string): string;
  /** The service's current revision. */
  revision(slug: string): number;
  /** Every service with its kind, revision and active keys. */
  services(): VaneServiceSummary[];
  /** Open streams, dropped slow consumers and the bytes kept for replay. */
  stats(): StreamStats;
  /**
   * Resolves once every change made so far is durable and its patches sent:
   * `admin` calls return first, and a file or PostgreSQL store commits them
   * in the background.
   */
  settled(): Promise<void>;
  /** Ends open streams, stops timers, writes pending state and stops listening. Idempotent. */
  close(): Promise<void>;
  /**
   * A graceful stop (PROTOCOL §6): `/readyz` turns false, every stream is
   * sent `goaway` with delays spread over `drainWindowMs`, new streams are
   * sent `goaway` at once (come back after this server's exit bound,
   * `drainWindowMs + drainTimeoutMs`); after the window it stops listening, waits up to
   * `drainTimeoutMs` for in-flight requests, then closes. Resolves within
   * `drainWindowMs + drainTimeoutMs` and a little more. Idempotent.
   */
  drain(): Promise<void>;
  /**
   * Compares this replica's streams with its fleet's now (as the periodic
   * check does) and sends `goaway` to its excess; resolves with how many.
   */
  rebalance(): Promise<number>;
  /** The admin API's and console's listener (`url` unless `adminListen`). */
  readonly adminUrl: string;
  /** Where `/healthz`, `/readyz` and `/metrics` answer. */
  readonly opsUrl: string;
  /** The Prometheus metrics `/metrics` serves. */
  readonly metrics: VaneServerMetrics;
  /** The checks of `/readyz`; an app may add its own. */
  readonly readiness: VaneServerReadiness;
  /** This replica, as the fleet sees it. */
  readonly replica: LocalReplica;
}
