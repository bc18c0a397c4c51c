import { Inject, Injectable } from '@nestjs/common';
import { VaneClient, type StaleStartReason, type SyncMode } from '@vane/client';
import { DEFAULTS } from '@vane/client/adapter';
import type { VaneModuleOptions } from '../interfaces/vane-module-options.interface.js';
import { VANE_MODULE_OPTIONS } from '../vane.constants.js';
import { loadOptionalPeer } from '../utils/optional-peer.js';

/** What the health indicator reports beside `status`. */
export interface VaneHealthDetails {
  /**
   * The client's `status.mode`, in the vocabulary of `SYNC_MODES` that the
   * `vane.client.sync.mode` metric uses too: `stream` while the live stream
   * is connected, `polling` otherwise, `stale` while the last-known-good
   * backup is served, `rate-limited` or `quarantined` while the service makes
   * the client wait (429), `halted` after a 402, `closed` after shutdown.
   */
  readonly mode: SyncMode;
  /** True while the stream is connected. */
  readonly connected: boolean;
  /** Milliseconds since the snapshot was last confirmed current. */
  readonly snapshotAgeMs: number;
  /** True when the tenant is billing-overdue (402): the last snapshot is served, nothing is updated. */
  readonly billingOverdue: boolean;
  /** The snapshot's revision. */
  readonly revision: number;
  /** Why the status is `down`, when it is. */
  readonly reason?: string;
  /**
   * Present while the client serves its last-known-good backup (it started
   * while the service could not be reached): the backup's age, why the
   * service was not used, and the start's error as `CODE: message`. A stale
   * client is `up` (serving the backup is the point) unless another rule
   * makes it `down`.
   */
  readonly stale?: VaneHealthStaleDetails;
  /**
   * With a `schema`: the config keys whose latest value failed it, with the
   * validator's issues (never the value). Present only when there are some;
   * the status stays `up`, since readers keep getting each key's last valid value.
   */
  readonly invalidConfigs?: readonly { readonly key: string; readonly issues: readonly string[] }[];
}

/** The `stale` member of {@link VaneHealthDetails}. */
export interface VaneHealthStaleDetails {
  /** Milliseconds since the backup was saved. */
  readonly ageMs: number;
  /** Why the service was not used at startup (`transport`, `timeout`, `server-error`, …). */
  readonly reason: StaleStartReason;
  /** The start's error: its code and message (never a key or a secret value). */
  readonly cause: string;
}

/** A `@nestjs/terminus` health indicator result: `{ [key]: { status, ...details } }`. */
export type VaneHealthIndicatorResult<Key extends string = string> = Record<
  Key,
  { status: 'up' | 'down' } & VaneHealthDetails
>;

/**
 * A `@nestjs/terminus` health indicator (terminus is an optional peer,
 * loaded on the first check). `up` while the stream is connected, or while
 * polling keeps the snapshot younger than `healthMaxSnapshotAgeMs`, or while
 * it serves its last-known-good backup (with `stale` details); `down`
 * when billing is overdue, the service makes the client wait (429: rate-limited
 * or quarantined), the client is closed, or the snapshot is too old.
 *
 * @example
 * ```ts
 * @Get('health') @HealthCheck()
 * check() { return this.health.check([() => this.vane.isHealthy('vane')]); }
 * ```
 */
@Injectable()
export class VaneHealthIndicator {
  constructor(
    private readonly client: VaneClient,
    @Inject(VANE_MODULE_OPTIONS) private readonly options: VaneModuleOptions,
  ) {}

  /** The details, without terminus. */
  details(): VaneHealthDetails {
    const c = this.client;
    const status = c.status;
    const mode = status.mode;
    const maxAgeMs = this.options.healthMaxSnapshotAgeMs ?? 3 * (this.options.ttlMs ?? DEFAULTS.ttlMs);
    const stale = status.stale;
    const base = {
      mode,
      connected: c.connected,
      snapshotAgeMs: c.snapshotAgeMs,
      billingOverdue: c.billingOverdue,
      revision: c.revision,
      ...(stale && {
        stale: {
          ageMs: Math.max(0, Date.now() - stale.savedAt.getTime()),
          reason: stale.reason,
          cause: `${stale.error.code}: ${stale.error.message}`,
        },
      }),
      ...(c.invalidConfigs.size > 0
        ? { invalidConfigs: [...c.invalidConfigs.values()].map(({ key, issues }) => ({ key, issues })) }
        : {}),
    } as const;
    if (mode === 'closed') return { ...base, reason: 'the Vane client is closed' };
    if (mode === 'halted')
      return {
        ...base,
        reason: 'billing overdue (402): settle the invoices in the console; the last snapshot is served',
      };
    if (mode === 'rate-limited' || mode === 'quarantined')
      return {
        ...base,
        reason: `${mode} by the service (429): nothing is updated until ${status.retryAt?.toISOString() ?? 'the wait ends'}; the last snapshot is served`,
      };
    // A stale snapshot is old by nature: serving it during the outage is what the app asked for.
    if (mode === 'polling' && base.snapshotAgeMs > maxAgeMs)
      return { ...base, reason: `stream disconnected and snapshot older than ${maxAgeMs} ms` };
    return base;
  }

  /**
   * Checks the client and returns terminus's `up`/`down` result under `key`.
   * @throws OptionalPeerMissingError - when `@nestjs/terminus` is not installed.
   */
  async isHealthy<const Key extends string = 'vane'>(
    key: Key = 'vane' as Key,
  ): Promise<VaneHealthIndicatorResult<Key>> {
    const { HealthIndicatorService } = await loadOptionalPeer(
      '@nestjs/terminus',
      'VaneHealthIndicator',
      () => import('@nestjs/terminus'),
    );
    const session = new HealthIndicatorService().check(key);
    const details = this.details();
    const result = details.reason === undefined ? session.up({ ...details }) : session.down({ ...details });
    return result as unknown as VaneHealthIndicatorResult<Key>;
  }
}
