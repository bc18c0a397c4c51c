import type { StreamCount, StreamCounts } from '../fleet/stream-counts.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { PostgresSql } from './postgres-driver.js';
import { bounded } from './bounded-statement.js';

/** Options of {@link PostgresStreamCounts}. */
export interface PostgresStreamCountsOptions {
  /** This replica's row in `vane_replicas`. */
  readonly replicaId: string;
  /** A replica whose heartbeat is older than this, in ms, is not one of the fleet. */
  readonly liveMs: number;
  /** A change of this replica's streams is published within this many ms (changes meanwhile go in one update). @default 250 */
  readonly publishDelayMs?: number;
  readonly logger: VaneServerLogger;
}

/**
 * The fleet's stream counts in PostgreSQL: each replica keeps its own in the
 * `streams` column of its `vane_replicas` row (the heartbeat writes it too)
 * within {@link PostgresStreamCountsOptions.publishDelayMs} of a change, and
 * the rebalancer reads every live replica's row when it decides. A replica
 * whose row does not exist yet (before its first heartbeat) publishes
 * nothing and is not counted.
 */
export class PostgresStreamCounts implements StreamCounts {
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly sql: PostgresSql,
    private readonly options: PostgresStreamCountsOptions,
  ) {}

  async exchange(self: StreamCount): Promise<readonly StreamCount[]> {
    const { replicaId, liveMs } = this.options;
    // One statement: this replica's count is written and the peers' read at the same moment. Bounded: the
    // rebalancer waits on it, and skips its looks while it does.
    const peers = await bounded(
      this.sql<{ id: string; streams: number }[]>`
        WITH mine AS (UPDATE vane_replicas SET streams = ${self.streams} WHERE id = ${replicaId})
        SELECT id, streams FROM vane_replicas
        WHERE id <> ${replicaId} AND seen_at > now() - make_interval(secs => ${liveMs / 1000})
        ORDER BY id`,
      "exchanging the replicas' stream counts",
    );
    return [self, ...peers.map((peer) => ({ id: peer.id, streams: Number(peer.streams) }))];
  }

  changed(self: () => StreamCount): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#closed) return;
      const { id, streams } = self();
      this.sql`UPDATE vane_replicas SET streams = ${streams} WHERE id = ${id}`.catch((error: Error) =>
        // The next heartbeat or decision publishes it again.
        this.options.logger.warn(`could not publish this replica's stream count: ${error.message}`, {
          event: 'stream_count_failed',
        }),
      );
    }, this.options.publishDelayMs ?? 250);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
