import type { FleetView } from './fleet-view.js';

/** One replica's streams as the rebalancer weighs them. */
export interface StreamCount {
  /** The replica's id (`--replica-id`). */
  readonly id: string;
  /** Streams it holds, plus those it sent `goaway` that have not landed elsewhere yet. */
  readonly streams: number;
}

/**
 * The fleet's stream counts as they are when the rebalancer decides, not as
 * the last heartbeat left them: a replica publishes its count when its
 * streams change and when it decides, and reads every peer's at that moment.
 * A single process has only itself; PostgreSQL keeps the counts in the
 * fleet's replica table.
 */
export interface StreamCounts {
  /**
   * Publishes `self`'s count and reads every live replica's as published
   * now, `self` included with the count given. Rejects when the counts
   * cannot be read (the rebalancer then decides nothing).
   */
  exchange(self: StreamCount): Promise<readonly StreamCount[]>;
  /**
   * This replica's streams changed: publish `self()` soon (a store batches
   * such calls; a single process has no one to tell).
   */
  changed(self: () => StreamCount): void;
  /** Stops any publication still pending. */
  close(): void;
}

/**
 * The counts of a {@link FleetView} (a single process, or a view a test
 * gives): `self`'s own entry is replaced by the count given.
 */
export class FleetViewStreamCounts implements StreamCounts {
  /** @param fleet - the view read at each decision. */
  constructor(private readonly fleet: FleetView) {}

  async exchange(self: StreamCount): Promise<readonly StreamCount[]> {
    const replicas = await this.fleet.replicas();
    return [self, ...replicas.filter((r) => r.id !== self.id).map((r) => ({ id: r.id, streams: r.streams }))];
  }

  changed(): void {
    // A view has no one to publish to: its peers' counts are what it reads.
  }

  close(): void {
    // Nothing pending.
  }
}
