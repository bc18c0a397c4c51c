/**
 * The store's configs aggregate: a service's config values.
 *
 * @module
 */
import { jsonEqual } from '@vane/common';
import type { ConfigValue } from './model.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { EMPTY, type StoreCore } from './store-core.js';

/** A service's config values. */
export class StoreConfigs {
  constructor(private readonly core: StoreCore) {}

  /** Sets a config value. */
  setConfig(slug: string, key: string, value: ConfigValue, actor: string): number {
    const service = this.core.requireService(slug);
    const old = service.configs.get(key);
    if (service.configs.has(key) && jsonEqual(old, value)) return service.revision;
    service.configs.set(key, value);
    return this.core.commit(
      slug,
      { service: false, configs: new Set([key]), flags: EMPTY, secrets: EMPTY },
      (revision) => ({
        type: 'config',
        slug,
        revision,
        key,
        value,
        audit: this.core.audit({
          actor,
          action: 'config.set',
          service: slug,
          key,
          revision,
          ...(old === undefined ? {} : { old }),
          new: value,
        }),
      }),
    );
  }

  /** Deletes a config value. */
  deleteConfig(slug: string, key: string, actor: string): number {
    const service = this.core.requireService(slug);
    const old = service.configs.get(key);
    if (!service.configs.delete(key)) throw new NotFoundError(`service "${slug}" has no config "${key}"`);
    return this.core.commit(
      slug,
      { service: false, configs: new Set([key]), flags: EMPTY, secrets: EMPTY },
      (revision) => ({
        type: 'config.delete',
        slug,
        revision,
        key,
        audit: this.core.audit({ actor, action: 'config.delete', service: slug, key, revision, old: old! }),
      }),
    );
  }
}
