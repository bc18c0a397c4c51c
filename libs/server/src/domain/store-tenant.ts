/**
 * The store's tenant aggregate: the tenant's settings: billing, quarantine, the A/B add-on.
 *
 * @module
 */
import type { TenantState } from './model.js';
import { EMPTY, type StoreCore } from './store-core.js';

/** The tenant's settings: billing, quarantine, the A/B add-on. */
export class StoreTenant {
  constructor(private readonly core: StoreCore) {}

  /** The tenant's settings. */
  get tenant(): Readonly<TenantState> {
    return this.core.data.tenant;
  }

  /**
   * Changes any of the tenant's settings. Turning the A/B add-on on or off
   * changes every A/B answer (PROTOCOL §7), so each service with flags moves
   * to a new revision whose patch carries every flag's record.
   */
  setTenant(patch: Partial<TenantState>, actor: string): Readonly<TenantState> {
    const addonTurned = patch.ab_addon !== undefined && patch.ab_addon !== this.core.data.tenant.ab_addon;
    const old = { ...this.core.data.tenant };
    Object.assign(this.core.data.tenant, patch);
    const audit = this.core.audit({
      actor,
      action: 'tenant.set',
      service: null,
      key: null,
      revision: null,
      old: { ...old },
      new: { ...this.core.data.tenant },
    });
    this.core.listeners.mutation?.({ type: 'tenant', tenant: { ...this.core.data.tenant }, audit });
    this.core.listeners.tenantChanged?.(this.core.data.tenant);
    if (addonTurned) {
      for (const [slug, service] of this.core.data.services) {
        if (service.flags.size === 0) continue;
        const flags = new Set(service.flags.keys());
        this.core.commit(slug, { service: false, configs: EMPTY, flags, secrets: EMPTY }, (revision) => ({
          type: 'revision',
          slug,
          revision,
        }));
      }
    }
    return this.core.data.tenant;
  }

  /** Whether the tenant's invoices are overdue by more than 14 days. */
  billingOverdue(): boolean {
    return this.core.data.tenant.overdue_days > 14;
  }

  /** The end of the tenant's quarantine if it is in force now. */
  quarantinedUntil(): string | undefined {
    const until = this.core.data.tenant.quarantined_until;
    return until !== null && Date.parse(until) > this.core.clock.now() ? until : undefined;
  }
}
