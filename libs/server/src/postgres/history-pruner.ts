/**
 * Keeps the change history bounded: every so many changes, a snapshot of
 * the whole state at the head, and what replay no longer needs dropped
 * (changes older than the history's age or beyond its bytes, and the
 * snapshots before the one they start from).
 */
import type { ServerData } from '../domain/model.js';
import type { TimerClock } from '../domain/clock.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { SealingCodec } from '../sealing/sealing-codec.js';
import { bounded } from './bounded-statement.js';
import type { PostgresSql } from './postgres-driver.js';
import { sealedText } from './stored-base.js';

/** Options of {@link HistoryPruner}. */
export interface HistoryPrunerOptions {
  readonly sql: PostgresSql;
  readonly codec: SealingCodec;
  readonly logger: VaneServerLogger;
  /** Current time in ms (the age of a change is measured on it). */
  readonly now: () => number;
  /** Changes younger than this are kept for replay on any replica, in ms. */
  readonly historyAgeMs: number;
  /** At most this many bytes of changes are kept for replay. */
  readonly historyBytes: number;
  /** A snapshot of the whole state is written after this many changes. */
  readonly snapshotEvery: number;
  /** @default the system clock */
  readonly clock?: TimerClock;
}

/** The state the pruner snapshots. */
export interface PrunedState {
  readonly data: ServerData;
  /** When each service was last committed. */
  readonly committed: ReadonlyMap<string, number>;
  /** The sequence number the state is at. */
  readonly seq: number;
}

/** See the file's comment. */
export class HistoryPruner {
  constructor(private readonly options: HistoryPrunerOptions) {}

  /** Whether `sinceSnapshot` changes call for a snapshot. */
  due(sinceSnapshot: number): boolean {
    return sinceSnapshot >= this.options.snapshotEvery;
  }

  /**
   * Writes the state as a snapshot (only when it is at the head: another
   * replica that committed since takes its own) and prunes. Never throws: a
   * failure is logged, and the next batch tries again.
   *
   * @returns false when it failed (the count since the last snapshot stands).
   */
  async snapshot(state: PrunedState): Promise<boolean> {
    const { sql } = this.options;
    const committed = JSON.stringify(Object.fromEntries(state.committed));
    const data = sealedText(this.options.codec, state.data);
    const { historyAgeMs: ageMs, historyBytes: bytes } = this.options;
    const at = state.seq;
    const bound = { clock: this.options.clock };
    try {
      // Statements, not a transaction: each is safe alone, and the snapshot is written only at the head.
      const written = await bounded(
        sql`INSERT INTO vane_snapshots (seq, data, committed)
          SELECT ${at}, ${data}, ${committed}
          WHERE (SELECT coalesce(max(seq), 0) FROM vane_changes) = ${at}
          ON CONFLICT (seq) DO NOTHING`,
        'writing a snapshot',
        bound,
      );
      // Another replica committed since: its snapshot is for it to take.
      if (written.count !== 1) return true;
      // The first change replay must keep: the oldest within both bounds.
      const [keep] = await bounded(
        sql<{ seq: number | null }[]>`
          SELECT min(seq) AS seq FROM (
            SELECT seq, committed_at_ms, sum(bytes) OVER (ORDER BY seq DESC) AS tail FROM vane_changes
          ) t WHERE tail <= ${bytes} AND committed_at_ms >= ${this.options.now() - ageMs}`,
        'finding the history to keep',
        bound,
      );
      const keepFrom = keep?.seq === null || keep?.seq === undefined ? at + 1 : Number(keep.seq);
      const [base] = await bounded(
        sql<{ seq: number | null }[]>`SELECT max(seq) AS seq FROM vane_snapshots WHERE seq < ${keepFrom}`,
        'finding the snapshot to keep',
        bound,
      );
      if (base?.seq !== null && base?.seq !== undefined) {
        // A replica loading meanwhile may find a gap after its snapshot: it loads again (readBase).
        await bounded(sql`DELETE FROM vane_snapshots WHERE seq < ${base.seq}`, 'pruning snapshots', bound);
        await bounded(sql`DELETE FROM vane_changes WHERE seq <= ${base.seq}`, 'pruning changes', bound);
      }
      return true;
    } catch (error) {
      this.options.logger.error(`could not write a snapshot: ${(error as Error).message}`);
      return false;
    }
  }
}
