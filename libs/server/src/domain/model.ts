/**
 * The local server's data model: what a seed file describes, what the state
 * file persists and what the store holds in memory. Wire names (snake_case)
 * are kept so a record can be written to JSON as it is.
 */

import type { ConfigValue, JsonValue, SecretType } from '@vane/common';

// The value types are Vane's, named once in @vane/common for the client and the server.
export type { ConfigValue, JsonValue, SecretType };

/** The string comparison a cohort condition applies (PROTOCOL §7). */
export type AbOperator = 'eq' | 'neq' | 'in' | 'not_in' | 'starts_with' | 'ends_with' | 'contains';

/** One condition of a cohort: `attribute op values`. */
export interface AbCondition {
  attribute: string;
  op: AbOperator;
  values: string[];
}

/** A cohort: when all its conditions hold, its percentage decides. */
export interface AbCohort {
  conditions: AbCondition[];
  /** 0–100. */
  percentage: number;
}

/** A flag's A/B rule (PROTOCOL §10). */
export interface AbRule {
  /** Rollout percentage, 0–100, used when no cohort matches. */
  percentage: number;
  salt: string;
  cohorts: AbCohort[];
}

/** A flag as the console defines it; `is_active` is derived, never stored here. */
export interface FlagDefinition {
  /** The switch: a flag is active when enabled and inside its schedule. */
  is_enabled: boolean;
  /** RFC 3339 UTC, or null for unbounded. */
  starts_at: string | null;
  /** RFC 3339 UTC, or null for unbounded. */
  ends_at: string | null;
  /** The A/B rule, if the flag has one. */
  ab?: AbRule;
}

/** The members of a flag definition, in their documented order (PROTOCOL §10). */
export type FlagMember = 'is_enabled' | 'starts_at' | 'ends_at' | 'ab';

/**
 * A partial update of a flag (`PATCH`): the members given change, the others
 * stay as they are; `ab: null` removes the A/B rule, `starts_at: null` or
 * `ends_at: null` removes that end of the schedule.
 */
export interface FlagPatch {
  is_enabled?: boolean;
  /** RFC 3339 UTC, or null for unbounded. */
  starts_at?: string | null;
  /** RFC 3339 UTC, or null for unbounded. */
  ends_at?: string | null;
  ab?: AbRule | null;
}

/** One stored version of a secret. */
export interface SecretVersion {
  /** 1-based, never reused within a secret key. */
  version: number;
  value: string;
  /** RFC 3339 UTC. */
  created_at: string;
}

/** A secret and its remaining versions, in ascending order; the last one is current. */
export interface SecretRecord {
  type: SecretType;
  versions: SecretVersion[];
}

/** What a secret's audit entry records (the per-service secret trail of PROTOCOL §10). */
export type AuditAction = 'secret.set' | 'secret.delete' | 'secret.version.delete';

/** One line of a service's secret audit trail. It never holds a value. */
export interface AuditEntry {
  /** RFC 3339 UTC. */
  at: string;
  action: AuditAction;
  key: string;
  /** The version created or deleted; null when all versions were deleted. */
  version: number | null;
  /** `admin`, the admin token's name, the writing key redacted (`svs_…abcd`) or `workload:<trust>`. */
  actor: string;
}

/** A change's name in the audit (`config.put`, `key.revoke`, …): the kind an {@link AuditEntry} records, not the change itself. */
export type ChangeAction =
  | AuditAction
  | 'service.put'
  | 'project.put'
  | 'key.create'
  | 'key.revoke'
  | 'trust.put'
  | 'trust.delete'
  | 'config.set'
  | 'config.delete'
  | 'flag.set'
  | 'flag.delete'
  | 'tenant.set'
  | 'token.create'
  | 'token.revoke'
  | 'root_key.rotate'
  | 'data_key.rotate';

/**
 * One entry of the server's audit (PROTOCOL §10): who changed what, when.
 * Entries form a hash chain: `hash` covers every other member, `prev` is the
 * hash of the entry before, so an entry edited, removed or moved is found.
 */
export interface AuditRecord {
  /** 1 for the first entry, one more for each next one. */
  seq: number;
  /** RFC 3339 UTC with milliseconds. */
  at: string;
  /** The admin token's name (`admin` for the owner token), the key redacted, or `workload:<trust>`. */
  actor: string;
  action: ChangeAction;
  /** The service changed; null for the tenant, projects and tokens. */
  service: string | null;
  /** The config, flag or secret key, key hint, trust, project or token name; null when none. */
  key: string | null;
  /** The service's revision after the change; null when the change made none. */
  revision: number | null;
  /** The secret version created or deleted (secrets only). */
  version?: number | null;
  /** The value before (configs and flags only; absent when there was none). */
  old?: JsonValue;
  /** The value after (configs and flags only; absent after a delete). */
  new?: JsonValue;
  /** The hash of the entry before, or 64 zeros for the first. */
  prev: string;
  /** SHA-256 (hex) of this entry's other members and `prev`; HMAC-SHA256 under the audit key when `keyed_by` is set. */
  hash: string;
  /** The audit key (`ak_…`, derived from a root key) that made `hash`; absent in an unkeyed chain (no root key, or older). */
  keyed_by?: string;
}

/** Billing, add-on, quarantine and rate-limit settings of the (single) tenant. */
export interface TenantState {
  /** Days the oldest invoice is overdue; more than 14 answers 402. */
  overdue_days: number;
  /** Whether the A/B add-on is active (else evaluate-ab answers 403). */
  ab_addon: boolean;
  /** RFC 3339 UTC; while in the future, every `/v1` call answers 429 `quarantined`. */
  quarantined_until: string | null;
  /** Secret writes allowed per key per minute. */
  write_rate_per_minute: number;
}

/**
 * The platforms whose workload identity the server can trust (PROTOCOL §8),
 * in their documented order: every schema, message and document that lists
 * them takes them from here.
 */
export const TRUST_PROVIDERS = Object.freeze(['kubernetes', 'aws', 'gcp', 'azure'] as const);

/** The platforms whose workload identity the server can trust (PROTOCOL §8). */
export type TrustProvider = (typeof TRUST_PROVIDERS)[number];

/** The platforms that prove identity with a signed JWT, checked against a key set ({@link JwtTrust}). */
export const JWT_TRUST_PROVIDERS: ReadonlyArray<Exclude<TrustProvider, 'aws'>> = Object.freeze(
  TRUST_PROVIDERS.filter((provider): provider is Exclude<TrustProvider, 'aws'> => provider !== 'aws'),
);

/** The key types, in their documented order: what an API key, or a trust's session, may do. */
export const KEY_TYPES = Object.freeze(['secret', 'public'] as const);

/** The key type a trust grants: a session acts as a secret or a public key of its service. */
export type TrustKeyType = (typeof KEY_TYPES)[number];

/**
 * Trust of a platform that issues signed JWTs (Kubernetes service-account
 * tokens, GCP identity tokens, Azure managed-identity tokens): the JWT must be
 * signed by a key of `jwks` (inline) or `jwks_url`, carry `iss` = `issuer`,
 * an `aud` containing `audience`, and a `sub` listed in `subjects`.
 */
export interface JwtTrust {
  provider: Exclude<TrustProvider, 'aws'>;
  issuer: string;
  audience: string;
  /** Allowed `sub` claims, compared exactly. */
  subjects: string[];
  /** An inline JSON Web Key Set (`{"keys": [...]}`); exactly one of `jwks` and `jwks_url`. */
  jwks?: { keys: Array<{ [key: string]: JsonValue }> };
  /** Where to fetch the JSON Web Key Set (http or https). */
  jwks_url?: string;
  key_type: TrustKeyType;
}

/**
 * Trust of AWS IAM: the signed `sts:GetCallerIdentity` the client sends is
 * forwarded to `sts_endpoint`; the caller's ARN (an assumed-role ARN counts
 * as its role) must be in `role_arns`.
 */
export interface AwsTrust {
  provider: 'aws';
  /** Origin the signed request is forwarded to. Default `https://sts.amazonaws.com`. */
  sts_endpoint: string;
  /** Allowed IAM role (or user) ARNs, e.g. `arn:aws:iam::123456789012:role/shop`. */
  role_arns: string[];
  /** When set, the signed request must carry a signed `x-vane-audience` header of this value. */
  audience?: string;
  key_type: TrustKeyType;
}

/** A workload-identity trust of one service. */
export type TrustDefinition = JwtTrust | AwsTrust;

/**
 * An API key as the server keeps it: its hash, never the key itself, so no
 * state file, journal or backup holds a usable key.
 */
export interface ApiKeyRecord {
  /** SHA-256 of the key, 64 hex digits. */
  hash: string;
  /** The key redacted (`svs_…abcd`), to tell keys apart. */
  hint: string;
  type: 'secret' | 'public';
  /**
   * The key itself, only when this process read it from the seed or
   * created it (so `server.secretKey()` works in tests): memory only, never
   * persisted.
   */
  plaintext?: string;
}

/**
 * A service's data key, wrapped (AES-256-GCM) by a root key: the key that
 * seals the service's secret values at rest.
 */
export interface DataKeyRecord {
  /** `dk1`, `dk2`, …: the newest seals, older ones still open what they sealed. */
  id: string;
  /** The id of the root key that wraps it. */
  root_key: string;
  /** base64url of IV, tag and ciphertext. */
  wrapped: string;
  /** RFC 3339 UTC. */
  created_at: string;
}

/** The project a service belongs to unless it names another. */
export const DEFAULT_PROJECT = 'default';

/** A project: a group of services, the unit admin tokens are scoped to. */
export interface ProjectRecord {
  /** RFC 3339 UTC; null for the default project, which always exists. */
  created_at: string | null;
}

/** What an admin token may do (PROTOCOL §10). */
export type AdminRight = 'read' | 'write' | 'secrets:reveal' | 'secrets:write' | 'keys' | 'admin';

/** Every right, in their documented order. */
export const ADMIN_RIGHTS: readonly AdminRight[] = [
  'read',
  'write',
  'secrets:reveal',
  'secrets:write',
  'keys',
  'admin',
];

/** Which services a token sees: all projects (`["*"]`), some projects, or some services. */
export type TokenScope = { projects: string[] } | { services: string[] };

/** A scoped admin token as the server keeps it: its hash, never the token. */
export interface AdminTokenRecord {
  /** SHA-256 of the token, 64 hex digits. */
  hash: string;
  scope: TokenScope;
  rights: AdminRight[];
  /** RFC 3339 UTC. */
  created_at: string;
  /** RFC 3339 UTC, updated at most once a minute; null until first used. */
  last_used_at: string | null;
}

/** One service: its keys and its values. */
export interface ServiceData {
  /** The project it belongs to. */
  project: string;
  /** `frontend` means no secrets are served to anyone. */
  kind: string;
  /** Keys that authenticate (`svs_…` secret, `svp_…` public). */
  keys: ApiKeyRecord[];
  /** Keys that answer 401. */
  revoked_keys: ApiKeyRecord[];
  configs: Map<string, ConfigValue>;
  flags: Map<string, FlagDefinition>;
  secrets: Map<string, SecretRecord>;
  /** Next version number per secret key; kept after deletion so versions never repeat. */
  next_versions: Map<string, number>;
  /** Grows by one with every observable change. */
  revision: number;
  /** Workload-identity trusts by name; each maps a platform identity to this service and a key type. */
  trusts: Map<string, TrustDefinition>;
  /** Wrapped data keys sealing this service's secrets at rest, oldest first; empty until one is needed. */
  data_keys: DataKeyRecord[];
}

/** Everything the local server holds. */
export interface ServerData {
  tenant: TenantState;
  services: Map<string, ServiceData>;
  /** Every change, oldest first, hash-chained. */
  audit: AuditRecord[];
  /** Projects by name; `default` is always there. */
  projects: Map<string, ProjectRecord>;
  /** Scoped admin tokens by name. */
  tokens: Map<string, AdminTokenRecord>;
  /** What access control keeps for the fleet: logouts and wrong admin-token guesses. */
  access: AccessState;
}

/**
 * Access control's own state, kept in the store so that every replica and a
 * restart see it; each entry is dropped once it no longer matters.
 */
export interface AccessState {
  /** Console sessions logged out before they expire: a hash of the session id → when it would have expired (epoch ms). */
  ended_sessions: Map<string, number>;
  /** Wrong admin-token guesses by client address (a hash of it, never the address). */
  guesses: Map<string, GuessRecord>;
}

/** The wrong admin-token guesses of one client address. */
export interface GuessRecord {
  /** Wrong guesses not yet forgotten. */
  count: number;
  /** The last one, epoch ms. */
  last_failure_ms: number;
  /** No guess from the address is checked before this time, epoch ms (0: none pending). */
  locked_until_ms: number;
}

/** An access state with nothing in it. */
export function emptyAccessState(): AccessState {
  return { ended_sessions: new Map(), guesses: new Map() };
}

/** Tenant defaults for anything a seed leaves out. */
export const DEFAULT_TENANT: Readonly<TenantState> = Object.freeze({
  overdue_days: 0,
  ab_addon: true,
  quarantined_until: null,
  write_rate_per_minute: 60,
});
