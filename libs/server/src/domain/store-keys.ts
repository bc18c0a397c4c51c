/**
 * The store's keys aggregate: what authenticates for a service: its API keys and its workload-identity trusts.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { apiKeyRecord, hashApiKey, storedApiKey } from './api-key-hash.js';
import type { TrustDefinition } from './model.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { StoreCore } from './store-core.js';
import type { KeyIdentity } from './store-types.js';

/** What authenticates for a service: its API keys and its workload-identity trusts. */
export class StoreKeys {
  constructor(private readonly core: StoreCore) {}

  /** Who a key is, if it authenticates for `slug`; undefined for unknown, revoked or another service's keys. */
  authenticate(slug: string, key: string): KeyIdentity | undefined {
    const identity = this.core.keyIndex.get(hashApiKey(key));
    if (!identity || identity.revoked || identity.slug !== slug) return undefined;
    return identity;
  }

  /** Issues a new key of the given type for a service. */
  createKey(slug: string, type: 'secret' | 'public', actor: string): string {
    const service = this.core.requireService(slug);
    const key = `${type === 'secret' ? 'svs' : 'svp'}_${slug.replace(/-/g, '_')}_${randomBytes(18).toString('base64url')}`;
    const record = apiKeyRecord(key);
    service.keys.push(record);
    this.core.keyIndex.set(record.hash, { slug, key: record.hash, type, revoked: false });
    const audit = this.core.audit({ actor, action: 'key.create', service: slug, key: record.hint, revision: null });
    this.core.listeners.mutation?.({ type: 'key', slug, key: storedApiKey(record), revoked: false, audit });
    return key;
  }

  /**
   * Revokes a key of a service, named by the key itself or by its hash (64
   * hex digits, for keys this process never saw); it answers 401 from now on
   * and its open streams end.
   */
  revokeKey(slug: string, key: string, actor: string): number {
    const service = this.core.requireService(slug);
    const hash = /^[0-9a-f]{64}$/.test(key) && this.core.keyIndex.has(key) ? key : hashApiKey(key);
    const identity = this.core.keyIndex.get(hash);
    if (!identity || identity.slug !== slug) throw new NotFoundError(`service "${slug}" has no such key`);
    if (!identity.revoked) {
      identity.revoked = true;
      const record = service.keys.find((k) => k.hash === hash)!;
      service.keys = service.keys.filter((k) => k.hash !== hash);
      service.revoked_keys.push(record);
      const audit = this.core.audit({ actor, action: 'key.revoke', service: slug, key: record.hint, revision: null });
      this.core.listeners.mutation?.({ type: 'key', slug, key: storedApiKey(record), revoked: true, audit });
      this.core.listeners.keyRevoked?.(identity);
    }
    return service.revision;
  }

  /** The service's workload-identity trust of this name, if any. */
  trust(slug: string, name: string): TrustDefinition | undefined {
    return this.core.data.services.get(slug)?.trusts.get(name);
  }

  /**
   * Creates or replaces a workload-identity trust. Replacing one ends the
   * sessions it issued (their key type or subjects may no longer hold).
   */
  putTrust(slug: string, name: string, trust: TrustDefinition, actor: string): TrustDefinition {
    const service = this.core.requireService(slug);
    const replaced = service.trusts.has(name);
    service.trusts.set(name, trust);
    const audit = this.core.audit({ actor, action: 'trust.put', service: slug, key: name, revision: null });
    this.core.listeners.mutation?.({ type: 'trust', slug, name, trust, audit });
    if (replaced) this.core.listeners.trustChanged?.(slug, name);
    return trust;
  }

  /** Deletes a trust; the sessions it issued answer 401 from now on. */
  deleteTrust(slug: string, name: string, actor: string): void {
    const service = this.core.requireService(slug);
    if (!service.trusts.delete(name)) throw new NotFoundError(`service "${slug}" has no trust "${name}"`);
    const audit = this.core.audit({ actor, action: 'trust.delete', service: slug, key: name, revision: null });
    this.core.listeners.mutation?.({ type: 'trust', slug, name, trust: null, audit });
    this.core.listeners.trustChanged?.(slug, name);
  }
}
