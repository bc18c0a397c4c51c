/**
 * The write path of a fleet replica. A write is queued, then committed in a
 * batch: the batch reads what other replicas committed since (and applies
 * it), runs its writes on that latest state, and inserts their records with
 * the next sequence numbers in one statement (with its NOTIFY): the primary
 * key on the sequence number is the fleet's lock. When another replica
 * committed first, the insert fails on it; the batch is undone, what was
 * committed is applied, and the batch runs again. No transaction stays open
 * across round trips, so a connection lost mid-write leaves nothing behind
 * to roll back.
 *
 * Every write over HTTP is answered by its deadline whatever the database
 * does: refused (`StoreUnavailableError`, 503) while its records were never
 * sent, and then it is never sent; `CommitOutcomeUnknownError` (504) once
 * they were sent and no answer came. A write's failure, retry or race is its
 * own: what reads show is the state as last committed
 * ({@link CommitPipeline.committedService}).
 */
import type { StoreWrite } from '../domain/change-log.js';
import type { TimerClock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { VaneServerLogger } from '../observability/logger.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../errors/store-errors.js';
import { bounded, refusedBeforeCommit } from './bounded-statement.js';
import type { ChangeCatchUp } from './change-catch-up.js';
import { changesAfterWithClock, storedRow, type ChangeRow } from './change-rows.js';
import { newPending, type PendingWrite, type WriteRuns } from './write-runs.js';
import type { PostgresSql } from './postgres-driver.js';
import { CHANGES_CHANNEL } from './postgres-schema.js';

/** Tries of one batch against other replicas' commits before it is refused (503). */
const MAX_COMMIT_ATTEMPTS = 50;

/** Bytes of records committed together at most (a single larger write goes alone). */
const BATCH_BYTES = 64 * 1024;

/**
 * A write over HTTP is answered within this, in ms, whatever the database
 * does: `503 store_unavailable` while its records were never sent (so never
 * committed), `504 commit_outcome_unknown` once they were and no answer came.
 * With the request's own work it stays well within 3 s.
 */
export const WRITE_DEADLINE_MS = 2000;

/** Options of {@link CommitPipeline}. */
export interface CommitPipelineOptions {
  readonly sql: PostgresSql;
  readonly logger: VaneServerLogger;
  /** What this replica applied; rows committed elsewhere are applied through it. */
  readonly applied: ChangeCatchUp;
  /** Where writes run in memory, and are undone. */
  readonly runs: WriteRuns;
  /** Runs after each batch committed (the history's snapshot, when due). */
  readonly afterBatch: () => Promise<void>;
  /** Rewrites the sealed state, between two batches (a checkpoint). */
  readonly rewrite: () => Promise<void>;
  /** Deadlines and statement bounds run on it. @default the system clock */
  readonly clock?: TimerClock;
  /** @default {@link WRITE_DEADLINE_MS} */
  readonly writeDeadlineMs?: number;
}

/** See the file's comment. */
export class CommitPipeline {
  private readonly queue: PendingWrite[] = [];
  private drainingNow: Promise<void> | undefined;
  /** Checkpoints asked for: taken between two batches, so a steady flow of writes never holds one back. */
  private checkpoints: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private closed = false;
  /** Writes made in process (`commitLater`) not yet committed or refused for good. */
  private readonly inProcess = new Set<PendingWrite>();
  /** Resolved when the batch being committed now ends (see {@link batchEnd}). */
  private batchEnded: Array<() => void> = [];

  constructor(private readonly options: CommitPipelineOptions) {}

  /** Whether a batch is being committed now. */
  get draining(): boolean {
    return this.drainingNow !== undefined;
  }

  /**
   * Resolves once the batch being committed now has ended (at once when
   * none is): each batch reads and applies everything committed before it,
   * so a reader waits one batch, never for a steady flow of writes to stop.
   */
  batchEnd(): Promise<void> {
    if (this.drainingNow === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => this.batchEnded.push(resolve));
  }

  /** Resolves once the drain running now (if any) ended. */
  async idle(): Promise<void> {
    while (this.drainingNow) await this.drainingNow;
  }

  /** Whether nothing is queued or in memory uncommitted (a reload may replace the state). */
  get quiet(): boolean {
    return this.drainingNow === undefined && !this.options.runs.anyUnsettled && this.queue.length === 0;
  }

  /** Services a write queued, running or not yet committed here may change: their state is not the store's yet. */
  busy(): Set<string> | 'all' {
    const busy = new Set<string>();
    for (const pending of [...this.queue, ...this.options.runs.inFlight()]) {
      if (pending.write.slugs === 'all') return 'all';
      for (const slug of pending.write.slugs) busy.add(slug);
    }
    return busy;
  }

  /** Queues a write; resolves once committed, rejects by its deadline at the latest. */
  commit<T>(write: StoreWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending = newPending(write, resolve as (v: unknown) => void, reject);
      const clock = this.options.clock ?? systemClock;
      const ms = this.options.writeDeadlineMs ?? WRITE_DEADLINE_MS;
      pending.deadlineAt = clock.now() + ms;
      pending.deadline = clock.setTimer(() => this.expire(pending), ms);
      this.enqueue(pending);
    });
  }

  /** Runs a write at once and commits it in the background; a failure to commit is logged. */
  commitLater<T>(write: StoreWrite<T>): T {
    const pending = newPending(
      write,
      () => undefined,
      (error) => this.options.logger.error(`a write made in process could not be committed: ${error.message}`),
    );
    this.options.runs.run(pending);
    if (pending.failed) throw pending.failed;
    this.inProcess.add(pending);
    void pending.finished.then(() => this.inProcess.delete(pending));
    this.enqueue(pending);
    return pending.result as T;
  }

  /** Resolves once every write made in process to `slug` so far is committed or refused for good. */
  inProcessWritesSettled(slug: string): Promise<void> {
    const waiting = [...this.inProcess].filter((p) => p.write.slugs === 'all' || p.write.slugs.includes(slug));
    if (waiting.length === 0) return Promise.resolve();
    return Promise.all(waiting.map((p) => p.finished)).then(() => undefined);
  }

  /** Resolves once a checkpoint ({@link CommitPipelineOptions.rewrite}) was taken between two batches. */
  checkpoint(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('the store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.checkpoints.push({ resolve, reject });
      this.kick();
    });
  }

  /** Refuses writes from now on, and resolves once the drain running now ended. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  /** A `commit` past its deadline: refused while never sent, its outcome unknown once sent. */
  private expire(pending: PendingWrite): void {
    const ms = this.options.writeDeadlineMs ?? WRITE_DEADLINE_MS;
    if (pending.phase === 'waiting') {
      this.answer(
        pending,
        new StoreUnavailableError(`the store did not take the write within ${ms} ms; nothing was changed`),
      );
    } else if (pending.phase === 'sending') {
      this.answer(pending, new CommitOutcomeUnknownError(`the store did not answer the commit within ${ms} ms`));
    }
  }

  /** Answers a write's client, once: the first answer stands (a deadline's, or the commit's). */
  private answer(pending: PendingWrite, error?: Error): void {
    if (pending.phase === 'answered') return;
    pending.phase = 'answered';
    pending.deadline?.cancel();
    if (error === undefined) pending.resolve(pending.result);
    else pending.reject(error);
  }

  private enqueue(pending: PendingWrite): void {
    if (this.closed) {
      this.answer(pending, new StoreUnavailableError('the store is closed'));
      pending.finish();
      return;
    }
    this.queue.push(pending);
    this.kick();
  }

  /**
   * Starts the drain unless it runs. Work queued between the drain's last look
   * at its queues and its end (a write a just-answered request makes at once,
   * a checkpoint asked for by the write just committed) starts the next one:
   * nothing waits for another write to come.
   */
  private kick(): void {
    if (this.drainingNow !== undefined) return;
    this.drainingNow = this.drain().finally(() => {
      this.drainingNow = undefined;
      if (this.queue.length > 0 || this.checkpoints.length > 0) this.kick();
    });
  }

  /** Commits the queued writes, a batch at a time, and takes the checkpoints asked for, until none is left. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.checkpoints.length > 0) {
      await this.takeCheckpoints();
      const batch = this.takeBatch();
      if (batch.length === 0) continue;
      try {
        const committed = await this.commitBatch(batch);
        for (const pending of committed) {
          if (pending.failed) this.answer(pending, pending.failed);
          else {
            for (const action of pending.actions) action();
            this.options.runs.committed(pending);
            this.answer(pending);
          }
        }
        await this.options.afterBatch();
      } catch (error) {
        this.undoRan(batch);
        const failure =
          error instanceof StoreUnavailableError || error instanceof CommitOutcomeUnknownError
            ? error
            : new StoreUnavailableError(`the write could not be committed to PostgreSQL: ${(error as Error).message}`, {
                cause: error,
              });
        for (const pending of batch) this.answer(pending, pending.failed ?? failure);
      } finally {
        for (const pending of batch) pending.finish();
        for (const resolve of this.batchEnded.splice(0)) resolve();
      }
    }
    for (const resolve of this.batchEnded.splice(0)) resolve();
  }

  /** Takes the checkpoints asked for so far, at once (nothing runs meanwhile). */
  private async takeCheckpoints(): Promise<void> {
    if (this.checkpoints.length === 0) return;
    const waiting = this.checkpoints.splice(0);
    try {
      await this.options.rewrite();
      for (const waiter of waiting) waiter.resolve();
    } catch (error) {
      for (const waiter of waiting) waiter.reject(error as Error);
    }
  }

  /**
   * Commits the writes of `batch` still waiting for it; resolves with those committed (or refused by the store's
   * own validation, `failed`). A write answered meanwhile (its deadline passed before its records were sent) is
   * left out, never to be sent.
   */
  private async commitBatch(batch: readonly PendingWrite[]): Promise<PendingWrite[]> {
    const { sql } = this.options;
    const applied = this.options.applied;
    const bound = { clock: this.options.clock };
    let live = batch.filter((p) => p.phase !== 'answered' || p.ran);
    const clock = this.options.clock ?? systemClock;
    for (let attempt = 1; ; attempt++) {
      const read = await bounded(
        changesAfterWithClock(sql, applied.applied),
        'reading the changes committed before the write',
        bound,
      ).catch((error: Error) => {
        throw new StoreUnavailableError(`the write was not sent: ${error.message}`, { cause: error });
      });
      const readAt = clock.now();
      const committed = read.filter((row): row is ChangeRow & { server_ms: number } => row.seq !== null);
      const expired = live.some((p) => p.phase === 'answered');
      if (committed.length > 0 || expired) {
        // Writes run here before were made on a state that is no longer the latest, or on one a refused write made.
        this.undoRan(live);
        applied.applyRows(committed);
        live = live.filter((p) => p.phase !== 'answered');
      }
      for (const pending of live) if (!pending.ran) this.options.runs.run(pending);
      const records = live.flatMap((p) => (p.failed ? [] : p.records));
      if (records.length === 0) return live;
      const values = records.map((r, i) => storedRow(applied.applied + 1 + i, r));
      // The insert is a no-op once the earliest deadline of the batch has passed on the database's clock (read
      // above: its clock then was at least server_ms when ours read readAt), so a write refused or left unknown at
      // its deadline is never committed by a statement that reached the database late.
      const deadlineAt = Math.min(...live.map((p) => p.deadlineAt ?? Number.POSITIVE_INFINITY));
      const serverDeadline = Number.isFinite(deadlineAt) ? read[0]!.server_ms + (deadlineAt - readAt) : null;
      for (const pending of live) if (pending.phase === 'waiting') pending.phase = 'sending';
      let inserted: readonly unknown[];
      try {
        inserted = await bounded(
          sql`WITH gate AS (
              SELECT ${serverDeadline}::float8 IS NULL
                OR clock_timestamp() < to_timestamp(${serverDeadline}::float8 / 1000) AS open
            ), inserted AS (
              INSERT INTO vane_changes (seq, slug, revision, record, change_set, committed_at_ms, bytes)
              SELECT seq, slug, revision, record, change_set, committed_at_ms, bytes
              FROM jsonb_to_recordset(${sql.json(values)}) AS r(seq bigint, slug text, revision integer,
                record text, change_set text, committed_at_ms bigint, bytes integer)
              WHERE (SELECT open FROM gate)
              RETURNING seq
            )
            SELECT pg_notify(${CHANGES_CHANNEL}, max(seq)::text) FROM inserted HAVING count(*) > 0`,
          'committing the write',
          bound,
        );
      } catch (error) {
        if (!refusedBeforeCommit(error)) {
          throw new CommitOutcomeUnknownError(
            `the write was sent to PostgreSQL and no answer came back: ${(error as Error).message}`,
            { cause: error },
          );
        }
        // Not committed: the writes wait again (a deadline passing now refuses them).
        for (const pending of live) if (pending.phase === 'sending') pending.phase = 'waiting';
        // 23505: a sequence number (or a revision) another replica committed first.
        if ((error as { code?: unknown }).code !== '23505') {
          throw new StoreUnavailableError(`PostgreSQL refused the write: ${(error as Error).message}`, {
            cause: error,
          });
        }
        if (attempt >= MAX_COMMIT_ATTEMPTS) {
          throw new StoreUnavailableError(
            `the write lost to other replicas' writes ${attempt} times in a row; retry it`,
            {
              cause: error,
            },
          );
        }
        continue;
      }
      if (inserted.length === 0) {
        for (const pending of live) if (pending.phase === 'sending') pending.phase = 'waiting';
        throw new StoreUnavailableError('the write reached PostgreSQL after its deadline: nothing was changed');
      }
      applied.sinceSnapshot += records.length;
      applied.applied += records.length;
      return live;
    }
  }

  /** Undoes every write that ran but is not committed: those queued after the batch first (made on top of it). */
  private undoRan(batch: readonly PendingWrite[]): void {
    this.options.runs.undo(this.queue.filter((p) => p.ran));
    this.options.runs.undo(batch.filter((p) => p.ran));
  }

  /**
   * The next writes to commit together: up to 64, and records of at most
   * {@link BATCH_BYTES} among those already run, so one commit never sends
   * streams a burst of large patches that would drop readers keeping up.
   * Writes answered while queued (their deadline passed) leave the queue, never run, never sent.
   */
  private takeBatch(): PendingWrite[] {
    for (const pending of this.queue.filter((p) => p.phase === 'answered' && !p.ran)) {
      this.queue.splice(this.queue.indexOf(pending), 1);
      pending.finish();
    }
    let bytes = 0;
    let count = 0;
    for (const pending of this.queue) {
      const size = pending.records.reduce((sum, r) => sum + JSON.stringify(r.change).length, 0);
      if (count > 0 && (count === 64 || bytes + size > BATCH_BYTES)) break;
      bytes += size;
      count++;
    }
    return this.queue.splice(0, count);
  }
}
