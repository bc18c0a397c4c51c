import type { StreamHub } from '../domain/stream-hub.js';
import type { LocalServerLogger } from '../logger.js';
import type { ServerMetrics } from '../ops/server-metrics.js';
import type { FleetView, ReplicaInfo } from './fleet-view.js';

/** Settings of the {@link Rebalancer}. */
export interface RebalanceOptions {
  /**
   * How often this replica compares its streams with its peers', in ms; 0
   * turns rebalancing off. After it shed, it waits for every peer's next
   * report (a heartbeat, every 5 s on PostgreSQL) before shedding again;
   * checking more often than that only catches those reports sooner.
   * @default 2500
   */
  intervalMs?: number;
  /**
   * How far above the fair share (the fleet's mean) a replica may be before
   * it sheds: 0.05 is 5 %. Only replicas above shed, so with n replicas one
   * may stay up to (n - 1) × this below the mean. @default 0.05
   */
  tolerance?: number;
  /** At most this many streams are sent `goaway` per round. @default 1000 */
  batch?: number;
  /** The `goaway` delays are spread over this many ms. @default 2000 */
  spreadMs?: number;
}

/**
 * How many streams a replica holding `mine` should shed: none while it is
 * within `tolerance` or one stream above the fleet's mean, else its excess over the mean
 * times n / (n - 1), at most `batch` at a time. A load balancer that knows
 * nothing of stream counts (round robin, random) sends 1 in n of the shed
 * streams back here: shedding n / (n - 1) times the excess lands this
 * replica on the mean in one round. `replicas` is the whole fleet, this
 * replica (`selfId`) included; its entry's count is replaced by `mine`.
 */
export function streamsToShed(
  mine: number,
  selfId: string,
  replicas: readonly ReplicaInfo[],
  tolerance: number,
  batch: number,
): number {
  const peers = replicas.filter((r) => r.id !== selfId);
  const count = peers.length + 1;
  const mean = (peers.reduce((sum, r) => sum + r.streams, 0) + mine) / count;
  // Within one stream of the mean is as even as whole streams get (one stream on one of three replicas).
  if (count < 2 || mine <= mean * (1 + tolerance) || mine - mean < 1) return 0;
  return Math.min(batch, mine, Math.ceil(((mine - mean) * count) / (count - 1)));
}

/**
 * Moves streams off a replica that holds more than its share, a little at a
 * time: LaunchDarkly Relay users saw 257 against 51 connections per pod,
 * never evened out after a rolling restart. A stream sent `goaway`
 * reconnects through the load balancer, which may pick another replica.
 */
export class Rebalancer {
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** When this replica last shed, in ms since the epoch. */
  #shedAt: number | undefined;
  /** The fleet's stream count at the last comparison that got that far. */
  #total: number | undefined;

  constructor(
    private readonly selfId: string,
    private readonly fleet: FleetView,
    private readonly hub: StreamHub,
    private readonly metrics: ServerMetrics,
    private readonly logger: LocalServerLogger,
    private readonly options: RebalanceOptions,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts the periodic check (nothing with `intervalMs: 0`). */
  start(): void {
    const intervalMs = this.options.intervalMs ?? 2500;
    if (intervalMs <= 0 || this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), intervalMs);
    this.#timer.unref();
  }

  /** Stops it (at drain and close). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One comparison: sheds the excess, if any; resolves with how many streams were sent `goaway`. Never rejects. */
  async tick(): Promise<number> {
    if (this.#running) return 0;
    this.#running = true;
    try {
      const replicas = await this.fleet.replicas();
      const spreadMs = this.options.spreadMs ?? 2000;
      // Peers that have not reported since what this replica shed landed would look emptier than they are.
      const shedAt = this.#shedAt;
      if (shedAt !== undefined && replicas.some((r) => r.id !== this.selfId && r.seenAt < shedAt + spreadMs)) return 0;
      const mine = this.hub.stats().streams;
      const tolerance = this.options.tolerance ?? 0.05;
      // Streams between replicas (waiting out a drain's or a shed's goaway) are counted nowhere: a mean taken
      // while the fleet's total moves is too low, and would shed too many.
      const total = replicas.reduce((sum, r) => sum + (r.id === this.selfId ? 0 : r.streams), mine);
      const last = this.#total;
      this.#total = total;
      if (last !== undefined && Math.abs(total - last) > tolerance * Math.max(total, last)) return 0;
      const shed = streamsToShed(mine, this.selfId, replicas, tolerance, this.options.batch ?? 1000);
      if (shed <= 0) return 0;
      this.#shedAt = this.now();
      const sent = this.hub.goaway(shed, () => this.random() * spreadMs);
      this.metrics.goaway('rebalance', sent);
      this.logger.info(`rebalancing: asked ${sent} of ${mine} stream(s) to reconnect elsewhere`, {
        event: 'rebalance',
        streams: mine,
        shed: sent,
        replicas: replicas.length,
      });
      return sent;
    } catch (error) {
      this.logger.warn(`rebalancing skipped: the fleet could not be read (${(error as Error).message})`, {
        event: 'rebalance_failed',
      });
      return 0;
    } finally {
      this.#running = false;
    }
  }
}
