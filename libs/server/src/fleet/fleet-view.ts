/** One replica as the fleet sees it. */
export interface ReplicaInfo {
  /** Stable for the life of the process (`--replica-id`, else host name, pid and a random part). */
  readonly id: string;
  /** Streams it holds open now. */
  readonly streams: number;
  /** The revision it serves, per service slug. */
  readonly revisions: Readonly<Record<string, number>>;
  /** When it last reported, in ms since the epoch. */
  readonly seenAt: number;
}

/**
 * What a replica knows of its fleet: every live replica, itself included.
 * The metrics show it, and the rebalancer compares its own stream count
 * with its peers'. A single process sees only itself; a store shared by
 * replicas (PostgreSQL) implements it from what each replica publishes.
 */
export interface FleetView {
  /** Every live replica, this one included. */
  replicas(): readonly ReplicaInfo[] | Promise<readonly ReplicaInfo[]>;
}

/** This replica, as a {@link FleetView} implementation reads it to publish it. */
export interface LocalReplica {
  /** Its id in the fleet (`replicaId`). */
  readonly id: string;
  /** Streams open now. */
  streams(): number;
  /** The revision served now, per service. */
  revisions(): Record<string, number>;
}

/** The fleet of a server that runs alone: itself. */
export class SingleProcessFleetView implements FleetView {
  /** @param self - this replica; `now` gives `seenAt`. */
  constructor(
    private readonly self: LocalReplica,
    private readonly now: () => number = Date.now,
  ) {}

  replicas(): readonly ReplicaInfo[] {
    return [{ id: this.self.id, streams: this.self.streams(), revisions: this.self.revisions(), seenAt: this.now() }];
  }
}
