import type { StreamHub } from '../domain/stream-hub.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { FleetMetrics } from './fleet-metrics.js';
import type { StreamCount, StreamCounts } from './stream-counts.js';

/** What the {@link Rebalancer} needs of the stream fan-out ({@link StreamHub}). */
export type RebalancedStreams = Pick<StreamHub, 'stats' | 'goaway' | 'streamsOpenedBefore'>;

/** Settings of the stream rebalancing across a fleet (`VaneServerOptions.rebalance`): each replica sheds the streams it holds beyond its share. */
export interface RebalanceOptions {
  /**
   * How often this replica compares its streams with its fleet's, in ms; 0
   * turns rebalancing off. @default 2500
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
  /**
   * How long streams sent `goaway` are given, after the longest delay, to
   * land on a replica and be counted there, in ms. Until then they are
   * still counted as this replica's, and it decides nothing. @default 1500
   */
  settleMs?: number;
  /**
   * A stream open for less than this, in ms, is never sent `goaway`: one
   * that was just moved (by a drain or a replica's death) is left to settle.
   * @default 10000
   */
  minStreamAgeMs?: number;
  /**
   * A stream that reached this replica since it began shedding for the
   * imbalance at hand (one moved for it already, come back here) is not
   * sent `goaway` for it until it has been open this long, in ms: a fleet
   * evens out within it, so a stream is moved once per imbalance. Never
   * forever: behind a round-robin balancer, such streams come to be most of
   * what an over-full replica holds. @default 30000
   */
  movedHoldMs?: number;
}

/** The defaults of {@link RebalanceOptions}, which its `@default` lines say (a test holds them to it). */
export const DEFAULT_REBALANCE: Readonly<Required<RebalanceOptions>> = Object.freeze({
  intervalMs: 2500,
  tolerance: 0.05,
  batch: 1000,
  spreadMs: 2000,
  settleMs: 1500,
  minStreamAgeMs: 10_000,
  movedHoldMs: 30_000,
});

/**
 * How many streams a replica holding `mine` should shed, given every
 * replica's count (`counts`, this one's entry replaced by `mine`): none
 * alone, within `tolerance` above the fleet's mean or within one stream of
 * it; else its excess down to its share (the mean rounded up, so never
 * below it), at most `batch`. A load balancer that knows nothing of stream
 * counts sends 1 in n of them back here and the rest to its peers: a
 * replica converges on its share in rounds, and every round moves at most
 * the excess left.
 */
export function streamsToShed(
  mine: number,
  selfId: string,
  counts: readonly StreamCount[],
  tolerance: number,
  batch: number,
): number {
  const peers = counts.filter((c) => c.id !== selfId);
  const n = peers.length + 1;
  const mean = (peers.reduce((sum, c) => sum + c.streams, 0) + mine) / n;
  // Within one stream of the mean is as even as whole streams get (one stream on one of three replicas).
  if (n < 2 || mine <= mean * (1 + tolerance) || mine - mean < 1) return 0;
  return Math.max(0, Math.min(batch, mine - Math.ceil(mean)));
}

/**
 * Moves streams off a replica that holds more than its share, a little at a
 * time: LaunchDarkly Relay users saw 257 against 51 connections per pod,
 * never evened out after a rolling restart. A stream sent `goaway`
 * reconnects through the load balancer, which may pick another replica.
 *
 * It converges rather than swings: it decides on the counts every replica
 * publishes now (not its last heartbeat), only when the fleet's total has
 * not fallen since its last look (streams between replicas are counted
 * nowhere, and a mean without them is too low); it sheds at most its
 * excess and never below its share; it counts what it shed as its own
 * until those streams can have landed elsewhere (so no peer sees a hole and
 * sheds into it); and it does not shed a stream that reached it lately, or
 * since the imbalance began (one moved for it already).
 */
export class Rebalancer {
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** Streams sent `goaway` and not yet landed elsewhere: counted here until `until` (ms). */
  #inFlight: Array<{ count: number; until: number }> = [];
  /** The fleet's stream count at the last look. */
  #total: number | undefined;
  /** When this replica first shed for the imbalance it is shedding for now (ms); undefined once within its share. */
  #imbalanceSince: number | undefined;

  constructor(
    private readonly selfId: string,
    private readonly counts: StreamCounts,
    private readonly hub: RebalancedStreams,
    private readonly metrics: Pick<FleetMetrics, 'goaway'>,
    private readonly logger: VaneServerLogger,
    private readonly options: RebalanceOptions,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts the periodic check (nothing with `intervalMs: 0`). */
  start(): void {
    const intervalMs = this.options.intervalMs ?? DEFAULT_REBALANCE.intervalMs;
    if (intervalMs <= 0 || this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), intervalMs);
    this.#timer.unref();
  }

  /** Stops it (at drain and close), and any count publication pending. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.counts.close();
  }

  /**
   * What this replica publishes as its streams: those open, plus those it
   * sent `goaway` that may not have landed elsewhere yet.
   */
  reported(): StreamCount {
    const now = this.now();
    this.#inFlight = this.#inFlight.filter((shed) => shed.until > now);
    const inFlight = this.#inFlight.reduce((sum, shed) => sum + shed.count, 0);
    return { id: this.selfId, streams: this.hub.stats().streams + inFlight };
  }

  /** A stream opened or closed here: the fleet hears of it soon. */
  streamsChanged(): void {
    this.counts.changed(() => this.reported());
  }

  /**
   * One look: sheds the excess, if any; resolves with how many streams were
   * sent `goaway`. Never rejects.
   */
  async tick(): Promise<number> {
    if (this.#running) return 0;
    this.#running = true;
    try {
      const self = this.reported();
      // Streams it shed are still on their way: what the fleet holds is not known yet.
      if (this.#inFlight.length > 0) return 0;
      const counts = await this.counts.exchange(self);
      const tolerance = this.options.tolerance ?? DEFAULT_REBALANCE.tolerance;
      const total = counts.reduce((sum, c) => sum + (c.id === this.selfId ? 0 : c.streams), self.streams);
      const last = this.#total;
      this.#total = total;
      // A total that fell (a drain's goaways, a replica gone, a count not published yet) gives a mean too low, which
      // would shed too many; one that rose (a burst, streams counted both where they left and where they landed)
      // gives one too high, which sheds fewer: safe.
      if (last === undefined || last - total > tolerance * last) return 0;
      const mine = this.hub.stats().streams;
      const now = this.now();
      const excess = streamsToShed(mine, this.selfId, counts, tolerance, this.options.batch ?? DEFAULT_REBALANCE.batch);
      if (excess <= 0) {
        // Within its share: the imbalance is over, and the next one may move any stream again.
        this.#imbalanceSince = undefined;
        return 0;
      }
      this.#imbalanceSince ??= now;
      // Neither a stream that just arrived, nor, for a while, one that arrived since this imbalance began (one this
      // replica or a peer moved for it, back here again): a stream is moved once per imbalance.
      const openedBefore = Math.min(
        now - (this.options.minStreamAgeMs ?? DEFAULT_REBALANCE.minStreamAgeMs),
        Math.max(this.#imbalanceSince, now - (this.options.movedHoldMs ?? DEFAULT_REBALANCE.movedHoldMs)),
      );
      const shed = Math.min(excess, this.hub.streamsOpenedBefore(openedBefore));
      if (shed <= 0) return 0;
      const spreadMs = this.options.spreadMs ?? DEFAULT_REBALANCE.spreadMs;
      const sent = this.hub.goaway(shed, () => this.random() * spreadMs, openedBefore);
      this.#inFlight.push({
        count: sent,
        until: now + spreadMs + (this.options.settleMs ?? DEFAULT_REBALANCE.settleMs),
      });
      this.metrics.goaway('rebalance', sent);
      this.logger.info(`rebalancing: asked ${sent} of ${mine} stream(s) to reconnect elsewhere`, {
        event: 'rebalance',
        streams: mine,
        shed: sent,
        replicas: counts.length,
        fleet: total,
      });
      return sent;
    } catch (error) {
      this.logger.warn(
        `rebalancing skipped: the fleet's stream counts could not be read (${(error as Error).message})`,
        {
          event: 'rebalance_failed',
        },
      );
      return 0;
    } finally {
      this.#running = false;
    }
  }
}
