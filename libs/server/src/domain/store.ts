/**
 * The server's state and every way to change it: one {@link Store} composing
 * its aggregates (services, configs, flags, secrets, keys and trusts, tokens
 * and projects, the tenant) over a shared {@link StoreCore}.
 *
 * @module
 */
import type { TimerClock } from './clock.js';
import type { AuditFields } from './audit-chain.js';
import type {
  AuditRecord,
  ConfigValue,
  AdminRight,
  AdminTokenRecord,
  FlagDefinition,
  GuessRecord,
  TokenScope,
  SecretType,
  ServerData,
  ServiceData,
  TenantState,
  TrustDefinition,
} from './model.js';
import type { StateChange } from './state-change.js';
import { StoreConfigs } from './store-configs.js';
import { StoreCore } from './store-core.js';
import { StoreFlags } from './store-flags.js';
import { StoreKeys } from './store-keys.js';
import { StoreSecrets } from './store-secrets.js';
import { StoreServices } from './store-services.js';
import { StoreTenant } from './store-tenant.js';
import { StoreTokens } from './store-tokens.js';
import type {
  ChangeSet,
  KeyIdentity,
  SavedServices,
  SecretWriteOutcome,
  StoreListeners,
  StoreOptions,
} from './store-types.js';

export type * from './store-types.js';
export { computeIsActive, currentVersion } from './store-core.js';
export { redactKey } from '@vane/common';

/**
 * The local server's state and every way to change it. All mutations validate
 * their whole input before touching anything, commit one revision, and tell
 * the listeners synchronously, so a stream sees a change before the admin call
 * that made it returns.
 */
export class Store {
  /** The data every aggregate reads and changes. */
  readonly data: ServerData;
  private readonly core: StoreCore;
  private readonly services: StoreServices;
  private readonly configs: StoreConfigs;
  private readonly flags: StoreFlags;
  private readonly secrets: StoreSecrets;
  private readonly keys: StoreKeys;
  private readonly tokens: StoreTokens;
  private readonly tenants: StoreTenant;

  constructor(data: ServerData, clock: TimerClock, listeners: StoreListeners = {}, options: StoreOptions = {}) {
    this.data = data;
    this.core = new StoreCore(data, clock, listeners, options);
    this.services = new StoreServices(this.core);
    this.configs = new StoreConfigs(this.core);
    this.flags = new StoreFlags(this.core);
    this.secrets = new StoreSecrets(this.core);
    this.keys = new StoreKeys(this.core);
    this.tokens = new StoreTokens(this.core);
    this.tenants = new StoreTenant(this.core);
  }

  /** {@inheritDoc StoreServices.applyCommitted} */
  applyCommitted(change: StateChange, changes: ChangeSet | null, committedAtMs: number): void {
    this.services.applyCommitted(change, changes, committedAtMs);
  }

  /** {@inheritDoc StoreServices.saveServices} */
  saveServices(slugs: readonly string[] | 'all'): SavedServices {
    return this.services.saveServices(slugs);
  }

  /** {@inheritDoc StoreServices.restoreServices} */
  restoreServices(saved: SavedServices): void {
    this.services.restoreServices(saved);
  }

  /** {@inheritDoc StoreServices.reload} */
  reload(fresh: ServerData, committedAtMs: ReadonlyMap<string, number>): void {
    this.services.reload(fresh, committedAtMs);
  }

  /** {@inheritDoc StoreCore.lastCommittedAt} */
  lastCommittedAt(): ReadonlyMap<string, number> {
    return this.core.lastCommittedAt();
  }

  /** {@inheritDoc StoreCore.dueBoundaries} */
  dueBoundaries(): string[] {
    return this.core.dueBoundaries();
  }

  /** {@inheritDoc StoreCore.turnBoundaries} */
  turnBoundaries(slug: string): void {
    this.core.turnBoundaries(slug);
  }

  /** {@inheritDoc StoreTenant.tenant} */
  get tenant(): Readonly<TenantState> {
    return this.tenants.tenant;
  }

  /** {@inheritDoc StoreCore.service} */
  service(slug: string): ServiceData | undefined {
    return this.core.service(slug);
  }

  /** {@inheritDoc StoreCore.slugs} */
  slugs(): string[] {
    return this.core.slugs();
  }

  /** {@inheritDoc StoreKeys.authenticate} */
  authenticate(slug: string, key: string): KeyIdentity | undefined {
    return this.keys.authenticate(slug, key);
  }

  /** {@inheritDoc StoreFlags.isActive} */
  isActive(slug: string, flagKey: string): boolean {
    return this.flags.isActive(slug, flagKey);
  }

  /** {@inheritDoc StoreServices.putService} */
  putService(slug: string, kindGiven: string | undefined, actor: string, projectGiven?: string): number {
    return this.services.putService(slug, kindGiven, actor, projectGiven);
  }

  /** {@inheritDoc StoreTokens.putProject} */
  putProject(name: string, actor: string): boolean {
    return this.tokens.putProject(name, actor);
  }

  /** {@inheritDoc StoreTokens.token} */
  token(name: string): Readonly<AdminTokenRecord> | undefined {
    return this.tokens.token(name);
  }

  /** {@inheritDoc StoreTokens.tokenNameByHash} */
  tokenNameByHash(hash: string): string | undefined {
    return this.tokens.tokenNameByHash(hash);
  }

  /** {@inheritDoc StoreTokens.createToken} */
  createToken(name: string, hash: string, scope: TokenScope, rights: AdminRight[], actor: string): AdminTokenRecord {
    return this.tokens.createToken(name, hash, scope, rights, actor);
  }

  /** {@inheritDoc StoreTokens.revokeToken} */
  revokeToken(name: string, actor: string): void {
    this.tokens.revokeToken(name, actor);
  }

  /** {@inheritDoc StoreTokens.touchToken} */
  touchToken(name: string): void {
    this.tokens.touchToken(name);
  }

  /** {@inheritDoc StoreTokens.sessionEnded} */
  sessionEnded(idHash: string): boolean {
    return this.tokens.sessionEnded(idHash);
  }

  /** {@inheritDoc StoreTokens.endSession} */
  endSession(idHash: string, expiresAtMs: number): void {
    this.tokens.endSession(idHash, expiresAtMs);
  }

  /** {@inheritDoc StoreTokens.wrongGuesses} */
  wrongGuesses(address: string): Readonly<GuessRecord> | undefined {
    return this.tokens.wrongGuesses(address);
  }

  /** {@inheritDoc StoreTokens.recordWrongGuess} */
  recordWrongGuess(address: string, guesses: GuessRecord, forgetBeforeMs: number): void {
    this.tokens.recordWrongGuess(address, guesses, forgetBeforeMs);
  }

  /** {@inheritDoc StoreKeys.createKey} */
  createKey(slug: string, type: 'secret' | 'public', actor: string): string {
    return this.keys.createKey(slug, type, actor);
  }

  /** {@inheritDoc StoreKeys.revokeKey} */
  revokeKey(slug: string, key: string, actor: string): number {
    return this.keys.revokeKey(slug, key, actor);
  }

  /** {@inheritDoc StoreKeys.trust} */
  trust(slug: string, name: string): TrustDefinition | undefined {
    return this.keys.trust(slug, name);
  }

  /** {@inheritDoc StoreKeys.putTrust} */
  putTrust(slug: string, name: string, trust: TrustDefinition, actor: string): TrustDefinition {
    return this.keys.putTrust(slug, name, trust, actor);
  }

  /** {@inheritDoc StoreKeys.deleteTrust} */
  deleteTrust(slug: string, name: string, actor: string): void {
    this.keys.deleteTrust(slug, name, actor);
  }

  /** {@inheritDoc StoreConfigs.setConfig} */
  setConfig(slug: string, key: string, value: ConfigValue, actor: string): number {
    return this.configs.setConfig(slug, key, value, actor);
  }

  /** {@inheritDoc StoreConfigs.deleteConfig} */
  deleteConfig(slug: string, key: string, actor: string): number {
    return this.configs.deleteConfig(slug, key, actor);
  }

  /** {@inheritDoc StoreFlags.setFlag} */
  setFlag(slug: string, key: string, flag: FlagDefinition, actor: string): number {
    return this.flags.setFlag(slug, key, flag, actor);
  }

  /** {@inheritDoc StoreFlags.deleteFlag} */
  deleteFlag(slug: string, key: string, actor: string): number {
    return this.flags.deleteFlag(slug, key, actor);
  }

  /** {@inheritDoc StoreSecrets.setSecret} */
  setSecret(slug: string, key: string, value: string, type: SecretType, actor: string): SecretWriteOutcome {
    return this.secrets.setSecret(slug, key, value, type, actor);
  }

  /** {@inheritDoc StoreSecrets.deleteSecret} */
  deleteSecret(slug: string, key: string, actor: string): number {
    return this.secrets.deleteSecret(slug, key, actor);
  }

  /** {@inheritDoc StoreSecrets.deleteSecretVersion} */
  deleteSecretVersion(slug: string, key: string, version: number, actor: string): number {
    return this.secrets.deleteSecretVersion(slug, key, version, actor);
  }

  /** {@inheritDoc StoreTenant.setTenant} */
  setTenant(patch: Partial<TenantState>, actor: string): Readonly<TenantState> {
    return this.tenants.setTenant(patch, actor);
  }

  /** {@inheritDoc StoreCore.recordChange} */
  recordChange(change: StateChange, fields: Omit<AuditFields, 'at'>): AuditRecord {
    return this.core.recordChange(change, fields);
  }

  /** {@inheritDoc StoreTenant.billingOverdue} */
  billingOverdue(): boolean {
    return this.tenants.billingOverdue();
  }

  /** {@inheritDoc StoreTenant.quarantinedUntil} */
  quarantinedUntil(): string | undefined {
    return this.tenants.quarantinedUntil();
  }

  /** {@inheritDoc StoreCore.close} */
  close(): void {
    this.core.close();
  }

  /** {@inheritDoc StoreCore.requireService} */
  requireService(slug: string): ServiceData {
    return this.core.requireService(slug);
  }
}
