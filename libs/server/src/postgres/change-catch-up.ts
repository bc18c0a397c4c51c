/**
 * What this replica has applied of the change log, and the catch-up that
 * applies what other replicas committed: on a NOTIFY, on the LISTEN's
 * reconnect, at each check, and when a client shows a revision this replica
 * has not applied yet.
 */
import type { Store } from '../domain/store.js';
import type { TimerClock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { SealingCodec, StoredChange } from '../sealing/sealing-codec.js';
import { StoreUnavailableError } from '../errors/store-errors.js';
import { bounded } from './bounded-statement.js';
import { changesAfter, loadedChangeSet, type ChangeRow } from './change-rows.js';
import type { PostgresSql } from './postgres-driver.js';

/**
 * How long a stream whose `Last-Event-ID` is ahead waits for this replica to
 * read what is committed, in ms: well within a client's wait for the
 * stream's headers (10 s by default), generous for a loaded database.
 */
export const AHEAD_READ_MS = 5000;

/** What {@link ChangeCatchUp} needs of the commit pipeline: writes read and apply what is new themselves. */
export interface CommitsInFlight {
  /** Whether a batch is being committed now. */
  readonly draining: boolean;
  /** Resolves once no batch is being committed. */
  idle(): Promise<void>;
  /** Resolves once the batch being committed now (if any) has ended: it applied what was committed before it. */
  batchEnd(): Promise<void>;
}

/** Options of {@link ChangeCatchUp}. */
export interface ChangeCatchUpOptions {
  readonly sql: PostgresSql;
  readonly codec: SealingCodec;
  readonly logger: VaneServerLogger;
  /** @default the system clock */
  readonly clock?: TimerClock;
}

/** See the file's comment. */
export class ChangeCatchUp {
  /** The last sequence number applied here. */
  applied = 0;
  /** Changes applied or committed here since the last snapshot (the pruner's count). */
  sinceSnapshot = 0;
  /** True while rows committed elsewhere are applied: the store's change events are not this replica's writes. */
  applying = false;
  /**
   * Called once rows applied here held a root-key rotation another replica committed: that replica rewrites the
   * stored state after its commit, and may be lost before it does (killed, cut off), so this one rewrites it too.
   */
  onRotation: (() => void) | undefined;
  closed = false;
  private store: Store | undefined;
  private commits: CommitsInFlight = {
    draining: false,
    idle: () => Promise.resolve(),
    batchEnd: () => Promise.resolve(),
  };
  private catchingUp: Promise<void> | undefined;
  private catchUpAgain = false;

  constructor(private readonly options: ChangeCatchUpOptions) {}

  /** Binds the store rows are applied to, and the pipeline a catch-up must not interleave with. */
  bind(store: Store, commits: CommitsInFlight): void {
    this.store = store;
    this.commits = commits;
  }

  /** Applies rows other replicas committed, in order; a gap means the history this replica needs is gone. */
  applyRows(rows: readonly ChangeRow[]): void {
    const store = this.requireStore();
    this.applying = true;
    let rotated = false;
    try {
      for (const row of rows) {
        if (row.seq <= this.applied) continue;
        if (row.seq !== this.applied + 1) {
          throw new StoreUnavailableError(
            `change ${this.applied + 1} is no longer in the database (next is ${row.seq}): restart this replica`,
          );
        }
        const changeSet = row.change_set === null ? null : loadedChangeSet(JSON.parse(row.change_set));
        const stored = JSON.parse(row.record) as StoredChange;
        const change = this.options.codec.openChange(stored, store.data);
        store.applyCommitted(change, changeSet, Number(row.committed_at_ms));
        this.applied = row.seq;
        this.sinceSnapshot++;
        if (stored.type === 'root_key') rotated = true;
      }
    } finally {
      this.applying = false;
      if (rotated) this.onRotation?.();
    }
  }

  /** A catch-up in the background (a NOTIFY, a reconnect): its failure is logged; the next check tries again. */
  schedule(): void {
    if (this.closed || this.store === undefined) return;
    void this.catchUp().catch((error: Error) =>
      this.options.logger.error(`could not read the changes of other replicas: ${error.message}`),
    );
  }

  /**
   * Applies every committed change after the last one applied. Concurrent calls share one read, and a
   * call made while a read is out runs one more after it: that read may have missed its commit.
   */
  catchUp(): Promise<void> {
    if (this.catchingUp !== undefined) {
      this.catchUpAgain = true;
      return this.catchingUp;
    }
    this.catchingUp = (async () => {
      try {
        do {
          this.catchUpAgain = false;
          // Inside the drain, writes read and apply what is new themselves; apply nothing in between.
          while (this.commits.draining) await this.commits.idle();
          const rows = await bounded(changesAfter(this.options.sql, this.applied), 'reading new changes', {
            clock: this.options.clock,
          });
          if (this.commits.draining) return;
          this.applyRows(rows);
        } while (this.catchUpAgain && !this.closed);
      } finally {
        this.catchingUp = undefined;
      }
    })();
    return this.catchingUp;
  }

  /**
   * A client saw a revision this replica has not applied: read what is
   * committed now rather than at the next check. True once it is applied;
   * false when the database did not answer within {@link AHEAD_READ_MS}.
   */
  behind(): Promise<boolean> {
    let cancel: (() => void) | undefined;
    const late = new Promise<boolean>((resolve) => {
      const timer = (this.options.clock ?? systemClock).setTimer(() => resolve(false), AHEAD_READ_MS);
      cancel = () => timer.cancel();
    });
    const read = this.readHead().then(
      () => true,
      (error: Error) => {
        this.options.logger.error(`could not read the changes of other replicas: ${error.message}`);
        return false;
      },
    );
    return Promise.race([read, late]).finally(() => cancel?.());
  }

  /** Resolves once every change committed when it was called is applied here; rejects when it cannot be read. */
  private async readHead(): Promise<void> {
    const [row] = await bounded(
      this.options.sql<{ head: number | null }[]>`SELECT max(seq) AS head FROM vane_changes`,
      'reading the head',
      { clock: this.options.clock },
    );
    const head = Number(row?.head ?? 0);
    while (this.applied < head) {
      if (this.closed) throw new StoreUnavailableError('the store is closed');
      // While writes are committed here, each batch reads and applies what was committed first: wait for one
      // batch, never for a steady flow of writes to stop.
      if (this.commits.draining) await this.commits.batchEnd();
      else await this.catchUp();
    }
  }

  private requireStore(): Store {
    if (this.store === undefined) throw new Error('the change log has no store attached yet');
    return this.store;
  }
}
