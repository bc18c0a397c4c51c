import type { VaneServerLogger } from '../observability/logger.js';
import type { ReadinessCheck, ReadinessResult } from '../observability/readiness.js';
import type { FleetMetrics } from './fleet-metrics.js';

/**
 * Whether this replica serves what the store holds, per service, as the
 * store's drift check reports it (the revision and a digest of what is
 * served, compared with the store's). A service that differs for longer
 * than `boundMs` turns `/readyz` false (this object is a
 * {@link ReadinessCheck}), shows in `vane_service_drift_seconds`, and is
 * logged once; the store reloads it and reports it in step again.
 */
export class ServiceDrift implements ReadinessCheck {
  readonly name = 'drift';
  /** When each differing service was first seen to differ, in ms since the epoch. */
  readonly #since = new Map<string, number>();
  /** How each differing service differs, as last reported. */
  readonly #detail = new Map<string, string>();
  readonly #logged = new Set<string>();
  /** Since when, and why, this replica cannot read the store at all; undefined while it can. */
  #unreadable: { since: number; detail: string; services: readonly string[] } | undefined;

  constructor(
    private readonly metrics: FleetMetrics,
    private readonly logger: VaneServerLogger,
    /** How long a service may differ before it counts, in ms. */
    readonly boundMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The store saw `service` differ from what this replica serves (`detail`
   * says how; never a value).
   *
   * @returns whether it has differed for longer than the bound: time for the store to reload it.
   */
  differs(service: string, detail: string): boolean {
    const since = this.#since.get(service) ?? this.now();
    this.#since.set(service, since);
    this.#detail.set(service, detail);
    const seconds = (this.now() - since) / 1000;
    this.metrics.setDrift(service, seconds);
    if (seconds * 1000 > this.boundMs && !this.#logged.has(service)) {
      this.#logged.add(service);
      this.logger.warn(`service ${service} has differed from the store for ${Math.round(seconds)} s: ${detail}`, {
        event: 'drift',
        service,
        seconds: Math.round(seconds),
      });
    }
    return seconds * 1000 > this.boundMs;
  }

  /** At a check, before catching up: how many revisions of `service` the store had committed beyond what is served. */
  revisionsBehind(service: string, revisions: number): void {
    this.metrics.setRevisionLag(service, revisions);
  }

  /** The store saw `service` in step (after a reload, say). */
  inStep(service: string): void {
    this.#since.delete(service);
    this.#detail.delete(service);
    this.#logged.delete(service);
    this.metrics.setDrift(service, 0);
  }

  /**
   * The store refused this replica's checks several times in a row while it
   * answered (its role lost a right, say): every service it serves may
   * differ from the store's. Not ready at once (the checks in a row are the
   * bound), logged once as `drift`, and every service's drift metric counts
   * from the first report.
   */
  storeUnreadable(detail: string, services: readonly string[]): void {
    const since = this.#unreadable?.since ?? this.now();
    if (this.#unreadable === undefined) {
      this.logger.warn(`this replica cannot read the store, so what it serves may differ from it: ${detail}`, {
        event: 'drift',
        service: '*',
        seconds: 0,
      });
    }
    this.#unreadable = { since, detail, services };
    for (const service of services) this.metrics.setDrift(service, (this.now() - since) / 1000);
  }

  /** A check read the store again: ready once no service differs (its drift metric back to 0). */
  storeReadable(): void {
    const unreadable = this.#unreadable;
    if (unreadable === undefined) return;
    this.#unreadable = undefined;
    for (const service of unreadable.services) if (!this.#since.has(service)) this.metrics.setDrift(service, 0);
    this.logger.info(`this replica reads the store again`, { event: 'drift_recovered' });
  }

  check(): ReadinessResult {
    if (this.#unreadable !== undefined) {
      return { ok: false, detail: `cannot read the store: ${this.#unreadable.detail}` };
    }
    const now = this.now();
    const late = [...this.#since]
      .filter(([, since]) => now - since > this.boundMs)
      .map(([service]) => `${service} (${this.#detail.get(service)})`);
    return late.length === 0
      ? { ok: true }
      : { ok: false, detail: `differs from the store for over ${this.boundMs} ms: ${late.join(', ')}` };
  }
}
