/**
 * The backstop check of a fleet replica, every few seconds: heartbeat (the
 * streams it holds, the revisions and a digest of what it serves, the root
 * keys it holds), read the store's head and catch up when behind, compare
 * what it serves with the store and its peers (reloading the whole state
 * past the drift bound), and turn flag schedules no replica turned. A
 * replica that cannot read the store while PostgreSQL answers (SELECT
 * revoked from its role, say) reports drift after a few checks in a row,
 * and recovers by itself once a check reads again.
 */
import type { TimerClock, CancellableTimer } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { Store } from '../domain/store.js';
import type { ReplicaInfo } from '../fleet/fleet-view.js';
import { serviceDigest } from '../fleet/service-digest.js';
import type { ServiceDrift } from '../fleet/service-drift.js';
import { compareWithStore, type ServedService } from '../fleet/store-comparison.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { SealingCodec } from '../sealing/sealing-codec.js';
import { answeredByPostgres, bounded } from './bounded-statement.js';
import type { ChangeCatchUp } from './change-catch-up.js';
import type { CommitPipeline } from './commit-pipeline.js';
import type { PostgresSql } from './postgres-driver.js';
import { readWholeState } from './stored-base.js';

/** Checks in a row that PostgreSQL answered with an error before the replica reports it cannot read the store. */
export const UNREADABLE_AFTER_CHECKS = 3;

/** A peer's heartbeat as the check reads it. */
interface PeerBeat {
  id: string;
  streams: number;
  revisions: string;
  seen_at_ms: number;
  applied_seq: number;
  /** Absent from a replica older than the drift check. */
  digests: string | null;
}

/** Options of {@link StoreCheck}. */
export interface StoreCheckOptions {
  readonly sql: PostgresSql;
  readonly codec: SealingCodec;
  readonly logger: VaneServerLogger;
  /** This replica's name in the heartbeat table. */
  readonly replicaId: string;
  /** Interval of the check, in ms. */
  readonly intervalMs: number;
  readonly applied: ChangeCatchUp;
  readonly pipeline: CommitPipeline;
  /** @default the system clock */
  readonly clock?: TimerClock;
}

/** See the file's comment. */
export class StoreCheck {
  /** The other replicas as their last heartbeats said. */
  peers: ReplicaInfo[] = [];
  /** Streams open on this replica, for the heartbeat. */
  streamCount: () => number = () => 0;
  /** Where the check reports each service as differing or in step; without it, nothing is compared. */
  drift: ServiceDrift | undefined;
  /** The peers' digests per service, with the sequence number each had applied. */
  private peerDigests: Array<{ appliedSeq: number; digests: Record<string, string> }> = [];
  private checking = false;
  private closed = false;
  private timer: CancellableTimer | undefined;
  private store: Store | undefined;
  /** Checks in a row that PostgreSQL refused. */
  private refusals = 0;

  constructor(private readonly options: StoreCheckOptions) {}

  /** How recently a replica must have sent its heartbeat to count as one of the fleet: three checks. */
  get liveMs(): number {
    return 3 * this.intervalMs;
  }

  private get intervalMs(): number {
    return this.options.intervalMs;
  }

  /** Checks `store` every interval from now on. */
  start(store: Store): void {
    this.store = store;
    this.arm();
  }

  /** No check from now on; resolves once the one running (if any) ended. */
  stop(): void {
    this.closed = true;
    this.timer?.cancel();
  }

  private arm(): void {
    if (this.closed) return;
    this.timer = (this.options.clock ?? systemClock).setTimer(() => {
      void this.check().finally(() => this.arm());
    }, this.intervalMs);
  }

  /**
   * One check: heartbeat, head, catch-up, comparison, boundaries. Never
   * throws: a failure is logged, and counted when PostgreSQL answered it.
   */
  async check(): Promise<void> {
    if (this.closed || this.store === undefined || this.checking) return;
    this.checking = true;
    try {
      const heads = await this.beat(this.store);
      this.readable();
      await this.compare(heads);
      for (const slug of this.store.dueBoundaries()) {
        const store = this.store;
        await this.options.pipeline.commit({ slugs: [slug], run: () => store.turnBoundaries(slug) });
      }
    } catch (error) {
      this.options.logger.error(`the store check failed: ${(error as Error).message}`);
      if (answeredByPostgres(error)) this.refused(error as Error);
    } finally {
      this.checking = false;
    }
  }

  /** The heartbeat and the reads that ride on it; catches up when behind. Returns the store's head per service. */
  private async beat(store: Store): Promise<Record<string, number>> {
    const applied = this.options.applied;
    const revisions = JSON.stringify(
      Object.fromEntries(store.slugs().map((slug) => [slug, store.service(slug)!.revision])),
    );
    // Read in the same turn as `applied`: a peer at the same sequence number must serve these.
    const digests = JSON.stringify(Object.fromEntries([...this.served()].map(([slug, s]) => [slug, s.digest])));
    const rootKeys = JSON.stringify(this.options.codec.heldRootKeyIds());
    const id = this.options.replicaId;
    const seq = applied.applied;
    // One statement: the heartbeat, the head (overall and per service changed since this replica's), and the peers
    // seen lately (their streams for the rebalancer, their digests for the drift check).
    const rows = await bounded(
      this.options.sql<{ head: number | null; heads: string; peers: string }[]>`
        WITH beat AS (
          INSERT INTO vane_replicas (id, seen_at, applied_seq, streams, revisions, digests, root_keys)
          VALUES (${id}, now(), ${seq}, ${this.streamCount()}, ${revisions}, ${digests}, ${rootKeys})
          ON CONFLICT (id) DO UPDATE SET seen_at = now(), applied_seq = excluded.applied_seq,
            streams = excluded.streams, revisions = excluded.revisions, digests = excluded.digests,
            root_keys = excluded.root_keys
        )
        SELECT (SELECT max(seq) FROM vane_changes) AS head,
          (SELECT coalesce(json_object_agg(slug, revision), '{}'::json)::text FROM (
            SELECT slug, max(revision) AS revision FROM vane_changes
            WHERE seq > ${seq} AND revision IS NOT NULL GROUP BY slug) h) AS heads,
          (SELECT coalesce(json_agg(json_build_object('id', id, 'streams', streams, 'revisions', revisions,
              'seen_at_ms', (extract(epoch FROM seen_at) * 1000)::bigint,
              'applied_seq', applied_seq, 'digests', digests)), '[]'::json)::text
            FROM vane_replicas
            WHERE id <> ${id} AND seen_at > now() - make_interval(secs => ${this.liveMs / 1000})) AS peers`,
      'the heartbeat',
      { clock: this.options.clock },
    );
    const head = Number(rows[0]?.head ?? 0);
    const peers = JSON.parse(rows[0]?.peers ?? '[]') as PeerBeat[];
    this.peers = peers.map((peer) => ({
      id: peer.id,
      streams: peer.streams,
      revisions: JSON.parse(peer.revisions) as Record<string, number>,
      seenAt: Number(peer.seen_at_ms),
    }));
    this.peerDigests = peers
      .filter((peer) => peer.digests !== null)
      .map((peer) => ({
        appliedSeq: Number(peer.applied_seq),
        digests: JSON.parse(peer.digests!) as Record<string, string>,
      }));
    const heads = JSON.parse(rows[0]?.heads ?? '{}') as Record<string, number>;
    for (const slug of store.slugs()) {
      this.drift?.revisionsBehind(slug, Math.max(0, (heads[slug] ?? 0) - store.service(slug)!.revision));
    }
    if (head > applied.applied) {
      // A catch-up that fails (history gone, say) is what the drift check below is for.
      await applied
        .catchUp()
        .catch((error: Error) =>
          this.options.logger.error(`could not read the changes of other replicas: ${error.message}`),
        );
    }
    return heads;
  }

  /** PostgreSQL refused a check: after {@link UNREADABLE_AFTER_CHECKS} in a row, this replica cannot read the store. */
  private refused(error: Error): void {
    this.refusals++;
    if (this.refusals >= UNREADABLE_AFTER_CHECKS && this.store !== undefined) {
      this.drift?.storeUnreadable(`${error.message} (${this.refusals} checks in a row)`, this.store.slugs());
    }
  }

  /** A check read the store: whatever was unreadable is no longer. */
  private readable(): void {
    this.refusals = 0;
    this.drift?.storeReadable();
  }

  /** What this replica serves per service, except services with a write in flight here. */
  private served(): Map<string, ServedService> {
    const store = this.store!;
    const busy = this.options.pipeline.busy();
    const served = new Map<string, ServedService>();
    if (busy === 'all') return served;
    for (const slug of store.slugs()) {
      if (busy.has(slug)) continue;
      const service = store.service(slug)!;
      served.set(slug, {
        revision: service.revision,
        digest: serviceDigest(service, (key) => store.isActive(slug, key)),
      });
    }
    return served;
  }

  /**
   * Reports each service as in step or differing (from the head the
   * heartbeat read, and from the peers that had applied what this replica
   * has); any past the drift bound, the whole state is reloaded.
   */
  private async compare(heads: Record<string, number>): Promise<void> {
    const drift = this.drift;
    if (drift === undefined) return;
    const busy = this.options.pipeline.busy();
    if (busy === 'all') return;
    const applied = this.options.applied.applied;
    const outcome = compareWithStore({
      served: this.served(),
      busy,
      heads,
      peers: this.peerDigests.filter((p) => p.appliedSeq === applied).map((p) => p.digests),
    });
    let late = false;
    for (const [slug, detail] of outcome) {
      if (detail === undefined) drift.inStep(slug);
      else if (drift.differs(slug, detail)) late = true;
    }
    // Ready again only once a later check finds it in step.
    if (late) await this.reload();
  }

  /**
   * Replaces the whole state with the database's (the oldest kept snapshot
   * and every change after it), as a restart would load it, without
   * dropping streams: those of services that changed are sent `resync`.
   */
  private async reload(): Promise<void> {
    const pipeline = this.options.pipeline;
    await pipeline.idle();
    const state = await readWholeState(this.options.sql, this.options.codec);
    // A write began on the state being replaced meanwhile: the next check reloads instead.
    if (!pipeline.quiet || this.closed) return;
    this.store!.reload(state.data, state.committedAtMs);
    this.options.applied.applied = state.seq;
  }
}
