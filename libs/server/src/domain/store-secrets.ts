/**
 * The store's secrets aggregate: a service's secrets and their versions.
 *
 * @module
 */
import type { SecretType } from './model.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { EMPTY, type StoreCore, currentVersion } from './store-core.js';
import type { SecretWriteOutcome } from './store-types.js';

/** A service's secrets and their versions. */
export class StoreSecrets {
  constructor(private readonly core: StoreCore) {}

  /**
   * Adds a new version of a secret (creating the secret if needed). Setting
   * the value and type the current version already holds changes nothing and
   * answers that version, as a config set to its value does: a write passed
   * on again (a proxy's retry, a client's) makes no second version.
   */
  setSecret(slug: string, key: string, value: string, type: SecretType, actor: string): SecretWriteOutcome {
    const service = this.core.requireService(slug);
    const record = service.secrets.get(key);
    const current = record ? currentVersion(record) : undefined;
    if (record && current!.value === value && record.type === type) {
      return { revision: service.revision, key, type, version: current!.version };
    }
    const highest = current?.version ?? 0;
    const version = Math.max(service.next_versions.get(key) ?? 1, highest + 1);
    const entry = { version, value, created_at: this.core.isoNow() };
    if (record) {
      record.type = type;
      record.versions.push(entry);
    } else {
      service.secrets.set(key, { type, versions: [entry] });
    }
    service.next_versions.set(key, version + 1);
    const revision = this.core.commit(
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
        audit: this.core.audit({ actor, action: 'secret.set', service: slug, key, revision: r, version }),
      }),
    );
    return { revision, key, type, version };
  }

  /** Deletes every version of a secret. */
  deleteSecret(slug: string, key: string, actor: string): number {
    const service = this.core.requireService(slug);
    if (!service.secrets.delete(key)) throw new NotFoundError(`service "${slug}" has no secret "${key}"`);
    return this.core.commit(
      slug,
      { service: false, configs: EMPTY, flags: EMPTY, secrets: new Set([key]) },
      (revision) => ({
        type: 'secret.delete',
        slug,
        revision,
        key,
        audit: this.core.audit({ actor, action: 'secret.delete', service: slug, key, revision, version: null }),
      }),
    );
  }

  /** Deletes one version of a secret; deleting the last one deletes the secret. */
  deleteSecretVersion(slug: string, key: string, version: number, actor: string): number {
    const service = this.core.requireService(slug);
    const record = service.secrets.get(key);
    if (!record) throw new NotFoundError(`service "${slug}" has no secret "${key}"`);
    const index = record.versions.findIndex((v) => v.version === version);
    if (index === -1) throw new NotFoundError(`secret "${key}" has no version ${version}`);
    record.versions.splice(index, 1);
    if (record.versions.length === 0) service.secrets.delete(key);
    return this.core.commit(
      slug,
      { service: false, configs: EMPTY, flags: EMPTY, secrets: new Set([key]) },
      (revision) => ({
        type: 'secret.version.delete',
        slug,
        revision,
        key,
        version,
        audit: this.core.audit({ actor, action: 'secret.version.delete', service: slug, key, revision, version }),
      }),
    );
  }
}
