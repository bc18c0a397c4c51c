import type { AuditEntry, FlagMember, SecretType, TenantState, TrustDefinition } from '../domain/model.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { secretTrail } from '../domain/audit-query.js';
import type { SecretWriteOutcome, Store } from '../domain/store.js';
import { parseTrustDefinition, parseTrustName } from '../validation/trust-validation.js';
import {
  FLAG_MEMBERS,
  applyFlagPatch,
  parseConfigValue,
  parseFlagDefinition,
  parseFlagPatch,
  parseKey,
  parseKeyType,
  parseSecretType,
  parseSecretValue,
  parseServiceKind,
  parseSlug,
  parseTenantPatch,
  parseProjectName,
  type TokenRequest,
} from '../validation/index.js';
import { createHash, randomBytes } from 'node:crypto';
import { SCOPED_TOKEN_PREFIX } from '../auth/admin-token.js';

/** What replacing a flag did. */
export interface FlagReplaceResult {
  /** The service's revision after the change. */
  revision: number;
  /**
   * Members the flag had (a schedule end, an A/B rule) that the new
   * definition left out, and which are therefore gone: a replacement keeps
   * nothing it does not name. Empty when nothing was lost that way.
   */
  removed: FlagMember[];
}

/**
 * The admin operations on untrusted input, shared by the admin HTTP routes
 * and the in-process `server.admin`: each checks the service exists, parses
 * its input into the model's types and calls the store. Failures are domain
 * errors (`NotFoundError`, `ValidationError`); `http/` maps them
 * to statuses.
 */
export class AdminApi {
  constructor(private readonly store: Store) {}

  /** Creates a service (kind `backend`, project `default` unless given) or changes its kind or project; returns its revision. */
  putService(slug: string, kind: unknown, actor: string, project?: unknown): number {
    parseSlug(slug, 'slug');
    return this.store.putService(
      slug,
      kind === undefined ? undefined : parseServiceKind(kind, 'kind'),
      actor,
      project === undefined ? undefined : parseProjectName(project, 'project'),
    );
  }

  /** Creates a project; returns whether it is new. */
  putProject(name: string, actor: string): boolean {
    return this.store.putProject(parseProjectName(name, 'name'), actor);
  }

  /**
   * Creates a scoped admin token and returns it: the only time it is shown.
   * Only its hash is kept.
   */
  createToken(request: TokenRequest, actor: string): { name: string; token: string } {
    const token = `${SCOPED_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
    const hash = createHash('sha256').update(token).digest('hex');
    this.store.createToken(request.name, hash, request.scope, request.rights, actor);
    return { name: request.name, token };
  }

  /** Revokes a scoped admin token at once. */
  revokeToken(name: string, actor: string): void {
    this.store.revokeToken(name, actor);
  }

  /** Issues a new key of `type` (`secret` or `public`). */
  createKey(slug: string, type: unknown, actor: string): string {
    this.store.requireService(slug);
    return this.store.createKey(slug, parseKeyType(type, 'type'), actor);
  }

  /** Revokes a key of the service. */
  revokeKey(slug: string, key: string, actor: string): number {
    return this.store.revokeKey(slug, key, actor);
  }

  /** Creates or replaces a workload-identity trust. */
  putTrust(slug: string, name: unknown, trust: unknown, actor: string): TrustDefinition {
    this.store.requireService(slug);
    return this.store.putTrust(slug, parseTrustName(name, 'name'), parseTrustDefinition(trust, 'trust'), actor);
  }

  /** Deletes a trust. */
  deleteTrust(slug: string, name: string, actor: string): void {
    this.store.deleteTrust(slug, name, actor);
  }

  /** Sets a config value; returns the revision. */
  setConfig(slug: string, key: unknown, value: unknown, actor: string): number {
    this.store.requireService(slug);
    return this.store.setConfig(slug, parseKey(key, 'key', 'config'), parseConfigValue(value, 'value'), actor);
  }

  /** Deletes a config value; returns the revision. */
  deleteConfig(slug: string, key: string, actor: string): number {
    return this.store.deleteConfig(slug, key, actor);
  }

  /**
   * Creates or replaces a flag: members left out take their defaults
   * (no schedule, no A/B rule). Says which members the flag had that are gone.
   */
  setFlag(slug: string, key: unknown, flag: unknown, actor: string): FlagReplaceResult {
    const service = this.store.requireService(slug);
    const flagKey = parseKey(key, 'key', 'flag');
    const definition = parseFlagDefinition(flag, 'flag');
    const before = service.flags.get(flagKey);
    const given = flag as Record<string, unknown>; // an object: it parsed
    const removed = FLAG_MEMBERS.filter(
      (member) => given[member] === undefined && before?.[member] !== undefined && before[member] !== null,
    );
    return { revision: this.store.setFlag(slug, flagKey, definition, actor), removed };
  }

  /**
   * Changes only the members of an existing flag that `patch` names
   * (`ab: null` removes the rule); returns the revision.
   *
   * @throws NotFoundError when the service or the flag does not exist (`PUT` creates flags).
   */
  patchFlag(slug: string, key: string, patch: unknown, actor: string): number {
    const service = this.store.requireService(slug);
    const flag = service.flags.get(key);
    if (!flag) throw new NotFoundError(`service "${slug}" has no flag "${key}" (PUT creates one)`);
    return this.store.setFlag(slug, key, applyFlagPatch(flag, parseFlagPatch(patch, 'flag'), 'flag'), actor);
  }

  /** Deletes a flag; returns the revision. */
  deleteFlag(slug: string, key: string, actor: string): number {
    return this.store.deleteFlag(slug, key, actor);
  }

  /** Adds a secret version written by `actor`; the value is never echoed in an error. */
  setSecret(slug: string, key: unknown, value: unknown, type: unknown, actor: string): SecretWriteOutcome {
    this.store.requireService(slug);
    const secretKey = parseKey(key, 'key', 'secret');
    const secretValue = parseSecretValue(value, 'value');
    const secretType: SecretType = parseSecretType(type, 'type');
    return this.store.setSecret(slug, secretKey, secretValue, secretType, actor);
  }

  /** Deletes every version of a secret; returns the revision. */
  deleteSecret(slug: string, key: string, actor: string): number {
    return this.store.deleteSecret(slug, key, actor);
  }

  /** Deletes one version of a secret; returns the revision. */
  deleteSecretVersion(slug: string, key: string, version: number, actor: string): number {
    return this.store.deleteSecretVersion(slug, key, version, actor);
  }

  /** Changes any of the tenant's settings. */
  setTenant(patch: unknown, actor: string): Readonly<TenantState> {
    return this.store.setTenant(parseTenantPatch(patch, 'tenant'), actor);
  }

  /** The secret audit trail of a service (never values). */
  audit(slug: string): AuditEntry[] {
    this.store.requireService(slug);
    return secretTrail(this.store.data.audit, slug);
  }
}
