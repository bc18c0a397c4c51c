/** Why a stream was sent `goaway`: a drain (the replica stops) or a rebalance (it holds more than its share). */
export type GoawayReason = 'drain' | 'rebalance';

/**
 * What the fleet's parts report to the server's metrics: the rebalancer its
 * `goaway`s, the store's drift check how far each service is behind or apart.
 * `ServerMetrics` (`ops/server-metrics.ts`) implements it; the wiring passes
 * it in.
 */
export interface FleetMetrics {
  /** `count` streams were sent `goaway`. */
  goaway(reason: GoawayReason, count: number): void;
  /** How many revisions this replica is behind the latest committed one for `service`. */
  setRevisionLag(service: string, revisions: number): void;
  /** Seconds this replica has differed from the store for `service`; 0 in step. */
  setDrift(service: string, seconds: number): void;
}
