/**
 * The change log of a fleet: every replica keeps the whole state in memory
 * and serves reads from it; PostgreSQL holds the truth. This file binds the
 * parts, each doing one job in its own file:
 *
 * - `commit-pipeline.ts`: writes are queued, committed in batches with the
 *   next sequence numbers (the fleet's lock), answered by a deadline;
 * - `write-runs.ts`: writes run in memory ahead of their commit, undone when
 *   they lose the race; reads get the state as last committed;
 * - `change-catch-up.ts`: what other replicas committed is applied (a NOTIFY
 *   rings, the LISTEN's reconnect and each check catch what one missed);
 * - `store-check.ts`: the heartbeat, the drift check, flag-schedule turns;
 * - `history-pruner.ts`: snapshots and the history replay no longer needs;
 * - `sealed-rewrite.ts`: the checkpoint that re-seals what is stored after a
 *   key rotation;
 * - `stored-base.ts`: the seed, and the state a replica starts from.
 */
import type { ChangeLog, CommittedService, StoreWrite } from '../domain/change-log.js';
import type { TimerClock } from '../domain/clock.js';
import type { ServerData } from '../domain/model.js';
import type { Store, CommittedRevision } from '../domain/store.js';
import type { WriteRateLimiter } from '../domain/rate-limiter.js';
import type { FleetView, LocalReplica } from '../fleet/fleet-view.js';
import type { ServiceDrift } from '../fleet/service-drift.js';
import { VaneServerError } from '../errors/vane-server-error.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { StateChange } from '../domain/state-change.js';
import type { SealingCodec } from '../sealing/sealing-codec.js';
import { StoreOpenError, StoreUnreachableError } from '../errors/store-errors.js';
import { ChangeCatchUp } from './change-catch-up.js';
import type { ChangeRow } from './change-rows.js';
import { answeredByPostgres, bounded } from './bounded-statement.js';
import { CommitPipeline } from './commit-pipeline.js';
import { HistoryPruner, type PrunedState } from './history-pruner.js';
import { redactUrlPassword } from '../observability/log-text.js';
import { connectPostgres, type PostgresSql } from './postgres-driver.js';
import { PostgresRateLimiter } from './postgres-rate-limiter.js';
import { CHANGES_CHANNEL, migrate } from './postgres-schema.js';
import { PostgresStreamCounts } from './postgres-stream-counts.js';
import { rewriteSealed } from './sealed-rewrite.js';
import { StoreCheck } from './store-check.js';
import { readBase, seedIfEmpty } from './stored-base.js';
import { WriteRuns } from './write-runs.js';

/** Tries of a read that a lost connection or a late answer failed (each bounded). */
const READ_ATTEMPTS = 3;

export { WRITE_DEADLINE_MS } from './commit-pipeline.js';

/**
 * The defaults of {@link PostgresChangeLogOptions}, one home: the change log
 * resolves them once and hands its parts (the store check, the history
 * pruner) plain numbers; the options' `@default` lines are held to this table
 * by a test.
 */
export const POSTGRES_CHANGE_LOG_DEFAULTS = Object.freeze({
  checkIntervalMs: 5000,
  historyAgeMs: 3_600_000,
  historyBytes: 8 * 1024 * 1024,
  snapshotEvery: 500,
});

/** Options of {@link PostgresChangeLog.open}. */
export interface PostgresChangeLogOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** Seals every secret value the store writes (rows and snapshots) and opens what it reads. */
  readonly codec: SealingCodec;
  /** The data of an empty database (the seed); ignored when the database holds data. */
  readonly seed: () => ServerData;
  readonly logger: VaneServerLogger;
  /** Current time in ms. */
  readonly now: () => number;
  /** This replica's name in the heartbeat table. */
  readonly replicaId: string;
  /** Interval of the backstop check for missed commits (and of the heartbeat), in ms. @default 5000 */
  readonly checkIntervalMs?: number;
  /** Changes younger than this are kept for replay on any replica, in ms. @default 3600000 */
  readonly historyAgeMs?: number;
  /** At most this many bytes of changes are kept for replay. @default 8388608 */
  readonly historyBytes?: number;
  /** A snapshot of the whole state is written after this many changes. @default 500 */
  readonly snapshotEvery?: number;
  /** Write deadlines, statement bounds and the check's interval run on it. @default the system clock */
  readonly clock?: TimerClock;
}

/** What {@link PostgresChangeLog.open} loaded. */
export interface PostgresOpened {
  readonly log: PostgresChangeLog;
  /** The state as the oldest kept snapshot holds it; {@link PostgresChangeLog.attach} applies the rest. */
  readonly data: ServerData;
  /** When each service was last committed, as of that snapshot. */
  readonly committedAtMs: ReadonlyMap<string, number>;
  /** Whether the seed went into an empty database. */
  readonly seeded: boolean;
}

const RESOLVED = Promise.resolve();

/** See the file's comment. */
export class PostgresChangeLog implements ChangeLog {
  private store: Store | undefined;
  private pendingRows: ChangeRow[] = [];
  private closed = false;
  private listening: { unlisten(): Promise<void> } | undefined;
  private readonly applied: ChangeCatchUp;
  private readonly runs: WriteRuns;
  private readonly pipeline: CommitPipeline;
  private readonly pruner: HistoryPruner;
  private readonly checker: StoreCheck;

  private constructor(
    private readonly sql: PostgresSql,
    private readonly options: PostgresChangeLogOptions,
  ) {
    const { codec, logger, clock } = options;
    const given = (name: keyof typeof POSTGRES_CHANGE_LOG_DEFAULTS): number =>
      options[name] ?? POSTGRES_CHANGE_LOG_DEFAULTS[name];
    this.applied = new ChangeCatchUp({ sql, codec, logger, clock });
    this.runs = new WriteRuns(codec, () => this.applied.applying, options.now);
    this.pruner = new HistoryPruner({
      ...options,
      sql,
      historyAgeMs: given('historyAgeMs'),
      historyBytes: given('historyBytes'),
      snapshotEvery: given('snapshotEvery'),
    });
    this.pipeline = new CommitPipeline({
      sql,
      logger,
      clock,
      applied: this.applied,
      runs: this.runs,
      afterBatch: async () => {
        if (!this.pruner.due(this.applied.sinceSnapshot)) return;
        if (await this.pruner.snapshot(this.prunedState())) this.applied.sinceSnapshot = 0;
      },
      rewrite: async () => {
        await rewriteSealed(sql, codec, logger, this.prunedState(), { clock });
        this.applied.sinceSnapshot = 0;
      },
    });
    this.checker = new StoreCheck({
      sql,
      codec,
      logger,
      clock,
      replicaId: options.replicaId,
      intervalMs: given('checkIntervalMs'),
      applied: this.applied,
      pipeline: this.pipeline,
    });
  }

  /**
   * Connects, migrates, seeds an empty database, and loads the oldest kept
   * snapshot.
   *
   * @throws StoreOpenError when PostgreSQL cannot be reached, its schema is too new, or the driver is missing.
   */
  static async open(options: PostgresChangeLogOptions): Promise<PostgresOpened> {
    const sql = await connectPostgres(options.url, { max: 4, connectTimeoutSeconds: 2 });
    const where = redactUrlPassword(options.url, 'postgres://…');
    try {
      await sql`SELECT 1`;
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      throw new StoreUnreachableError(`cannot reach PostgreSQL at ${where}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      await migrate(sql);
      const log = new PostgresChangeLog(sql, options);
      const seeded = await seedIfEmpty(sql, options.codec, options.seed, options.now());
      const base = await readBase(sql, options.codec);
      log.applied.applied = base.seq;
      log.pendingRows = base.rows;
      return { log, seeded, data: base.data, committedAtMs: base.committedAtMs };
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      // A bad seed or a refused schema says so itself.
      if (error instanceof VaneServerError) throw error;
      throw new StoreOpenError(`cannot open the store at ${where}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Binds the store built on the loaded snapshot, applies every change kept
   * after it (which fills the replay history), then listens for commits.
   */
  async attach(store: Store): Promise<void> {
    this.store = store;
    this.runs.bind(store);
    this.applied.bind(store, this.pipeline);
    this.applied.applyRows(this.pendingRows);
    this.pendingRows = [];
    // From now on (not for the history loaded at start, which may hold rotations long since rewritten): a rotation
    // another replica committed is followed by this replica's own checkpoint, in case that replica's never comes.
    this.applied.onRotation = () => {
      if (this.closed) return;
      this.pipeline
        .checkpoint()
        .catch((error: Error) =>
          this.options.logger.error(
            `the checkpoint after another replica's root-key rotation failed: ${error.message}`,
          ),
        );
    };
    await this.applied.catchUp();
    this.listening = await this.sql.listen(
      CHANGES_CHANNEL,
      (payload) => {
        if (Number(payload) > this.applied.applied) this.applied.schedule();
      },
      // Runs again on every reconnect of the LISTEN connection: what was missed meanwhile is read now.
      () => this.applied.schedule(),
    );
    this.checker.start(store);
    // The first heartbeat now, not a check later: a replica counts (a rotation's 409 guard sees it) once attached.
    await this.checker.check();
  }

  /** Streams open on this replica, for the heartbeat. */
  set streamCount(count: () => number) {
    this.checker.streamCount = count;
  }

  /** Where the check reports each service as differing or in step; without it, nothing is compared. */
  set drift(drift: ServiceDrift | undefined) {
    this.checker.drift = drift;
  }

  behind(): Promise<boolean> {
    return this.applied.behind();
  }

  /** Long enough for any replica that can reach the database to apply what another committed. */
  readonly aheadHoldMs = 30_000;

  /** The fleet as the heartbeats show it: this replica now, and every peer seen within three checks. */
  fleetView(self: LocalReplica): FleetView {
    return {
      replicas: () => [
        { id: self.id, streams: self.streams(), revisions: self.revisions(), seenAt: this.options.now() },
        ...this.checker.peers,
      ],
    };
  }

  /** The fleet's stream counts as the replica table holds them now: what the rebalancer decides on. */
  streamCounts(): PostgresStreamCounts {
    const { replicaId, logger } = this.options;
    return new PostgresStreamCounts(this.sql, { replicaId, logger, liveMs: this.checker.liveMs });
  }

  /** The secret-write rate limit shared by every replica. */
  rateLimiter(): WriteRateLimiter {
    return new PostgresRateLimiter(this.sql);
  }

  /** The last sequence number applied here. */
  get appliedSeq(): number {
    return this.applied.applied;
  }

  record(change: StateChange): void {
    this.runs.record(change);
  }

  revised(change: CommittedRevision): void {
    this.runs.revised(change);
  }

  afterDurable(action: () => void): void {
    this.runs.afterDurable(action);
  }

  /** Reads are rendered from committed state ({@link committedService}): nothing to wait for, whatever writes do. */
  readable(): Promise<void> {
    return RESOLVED;
  }

  inProcessWritesSettled(slug: string): Promise<void> {
    return this.pipeline.inProcessWritesSettled(slug);
  }

  committedService(slug: string): CommittedService | undefined {
    return this.runs.committedService(slug);
  }

  /**
   * Resolves once every write whose effects are in memory now has left the
   * pipeline (committed, or refused and undone); never rejects: another
   * write's failure is that write's own. Writes made later are not waited
   * for, so a steady flow of writes never holds an answer back.
   */
  whenDurable(): Promise<void> {
    return this.runs.whenSettled();
  }

  commit<T>(write: StoreWrite<T>): Promise<T> {
    return this.pipeline.commit(write);
  }

  commitLater<T>(write: StoreWrite<T>): T {
    return this.pipeline.commitLater(write);
  }

  /**
   * A snapshot of the whole state now, sealed with the newest keys, the
   * older snapshots dropped, and the data-key records of the change history
   * wrapped again by the current root key: after a root-key rotation no
   * stored byte needs the old key. Taken between two commits.
   */
  checkpoint(): Promise<void> {
    return this.pipeline.checkpoint();
  }

  /**
   * The live replicas (heartbeat within three checks), this one aside, that
   * do not hold root key `rootKeyId`, as their last heartbeat says: a
   * rotation to it would leave them unable to open data keys made after it.
   */
  async replicasLacking(rootKeyId: string): Promise<string[]> {
    // A read, so trying again is safe: a connection PostgreSQL dropped while it restarted fails the first try.
    // Each try is bounded, so a rotation is answered (503, nothing changed) rather than left waiting.
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = await bounded(
          this.sql<{ id: string; root_keys: string | null }[]>`
            SELECT id, root_keys FROM vane_replicas
            WHERE id <> ${this.options.replicaId}
              AND seen_at > now() - make_interval(secs => ${this.checker.liveMs / 1000})
            ORDER BY id`,
          "reading the replicas' root keys",
        );
        return rows
          .filter((row) => !(JSON.parse(row.root_keys ?? '[]') as string[]).includes(rootKeyId))
          .map((row) => row.id);
      } catch (error) {
        if (answeredByPostgres(error) || attempt >= READ_ATTEMPTS) throw error;
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.applied.closed = true;
    this.checker.stop();
    await this.pipeline.close();
    await this.listening?.unlisten().catch(() => undefined);
    await this.sql`DELETE FROM vane_replicas WHERE id = ${this.options.replicaId}`.catch(() => undefined);
    await this.sql.end({ timeout: 2 });
  }

  /** The state as applied here, for a snapshot or a checkpoint. */
  private prunedState(): PrunedState {
    const store = this.requireStore();
    return { data: store.data, committed: store.lastCommittedAt(), seq: this.applied.applied };
  }

  private requireStore(): Store {
    if (this.store === undefined) throw new Error('the change log has no store attached yet');
    return this.store;
  }
}
