/**
 * The store's flags aggregate: a service's feature flags and the `is_active` each was published with.
 *
 * @module
 */
import { jsonEqual } from '@vane/common';
import type { FlagDefinition, JsonValue } from './model.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { EMPTY, type StoreCore, computeIsActive } from './store-core.js';

/** A service's feature flags and the `is_active` each was published with. */
export class StoreFlags {
  constructor(private readonly core: StoreCore) {}

  /** The `is_active` of a flag as last published. */
  isActive(slug: string, flagKey: string): boolean {
    return this.core.published.get(slug)?.get(flagKey) ?? false;
  }

  /** Creates or replaces a flag; its `is_active` and schedule are recomputed. */
  setFlag(slug: string, key: string, flag: FlagDefinition, actor: string): number {
    const service = this.core.requireService(slug);
    const old = service.flags.get(key);
    if (old !== undefined && jsonEqual(old, flag)) return service.revision;
    service.flags.set(key, flag);
    this.core.published.get(slug)!.set(key, computeIsActive(flag, this.core.clock.now()));
    return this.commitFlag(slug, key, old, flag, actor);
  }

  /** Deletes a flag. */
  deleteFlag(slug: string, key: string, actor: string): number {
    const service = this.core.requireService(slug);
    const old = service.flags.get(key);
    if (!service.flags.delete(key)) throw new NotFoundError(`service "${slug}" has no flag "${key}"`);
    this.core.published.get(slug)!.delete(key);
    return this.commitFlag(slug, key, old, null, actor);
  }

  /** Commits a flag set (or deleted: `null`), then re-arms the schedule timer for the next boundary. */
  private commitFlag(
    slug: string,
    key: string,
    old: FlagDefinition | undefined,
    flag: FlagDefinition | null,
    actor: string,
  ): number {
    const revision = this.core.commit(
      slug,
      { service: false, configs: EMPTY, flags: new Set([key]), secrets: EMPTY },
      (r) => ({
        type: 'flag',
        slug,
        revision: r,
        key,
        flag,
        audit: this.core.audit({
          actor,
          action: flag === null ? 'flag.delete' : 'flag.set',
          service: slug,
          key,
          revision: r,
          ...(old === undefined ? {} : { old: flagJson(old) }),
          ...(flag === null ? {} : { new: flagJson(flag) }),
        }),
      }),
    );
    this.core.scheduleNextBoundary(slug);
    return revision;
  }
}

/** A flag as the audit records it: its JSON form, `ab` only when it has one. */
function flagJson(flag: FlagDefinition): JsonValue {
  const json: { [key: string]: JsonValue } = {
    is_enabled: flag.is_enabled,
    starts_at: flag.starts_at,
    ends_at: flag.ends_at,
  };
  if (flag.ab !== undefined) json['ab'] = JSON.parse(JSON.stringify(flag.ab)) as JsonValue;
  return json;
}
