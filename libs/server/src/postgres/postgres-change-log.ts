/**
 * The change log of a fleet: every replica keeps the whole state in memory
 * and serves reads from it; PostgreSQL holds the truth. A write takes the
 * write lock in a transaction, applies what other replicas committed first,
 * runs against that latest state, and inserts its records with the next
 * sequence numbers; only then is it answered and its patch sent. A NOTIFY
 * (the sequence number, nothing else) rings the other replicas, which read
 * the rows after the last one they applied; a periodic check and the
 * LISTEN's reconnect hook catch what a lost notification missed. The
 * check's heartbeat also publishes a digest of each service served, and
 * compares this replica with the store's head and its peers: a replica that
 * differs past the drift bound reloads the whole state from the database.
 */
import type { ChangeLog, StoreWrite } from '../domain/change-log.js';
import type { ChangeSet, SavedServices, Store, StoreChange } from '../domain/store.js';
import type { DataKeyRecord, JsonValue, ServerData } from '../domain/model.js';
import type { LocalServerLogger } from '../logger.js';
import type { StateChange } from '../persistence/state-change.js';
import { serializeServerData } from '../persistence/state-serializer.js';
import { parseServerDataJson } from '../seed/seed-parser.js';
import { LocalServerError } from '../local-server-error.js';
import { StoreOpenError, StoreUnavailableError } from '../store/store-errors.js';
import { connectPostgres, redactPostgresUrl, type PostgresSql } from './postgres-driver.js';
import { CHANGES_CHANNEL, migrate } from './postgres-schema.js';
import { PostgresRateLimiter } from './postgres-rate-limiter.js';
import { missingKeyError, type SealingCodec, type StoredChange } from '../sealing/sealing-codec.js';
import type { WriteRateLimiter } from '../domain/rate-limiter.js';
import type { FleetView, LocalReplica, ReplicaInfo } from '../fleet/fleet-view.js';
import type { ServiceDrift } from '../fleet/service-drift.js';
import { serviceDigest } from '../fleet/service-digest.js';
import { compareWithStore, type ServedService } from '../fleet/store-comparison.js';
import { applyStateChange } from '../persistence/state-change.js';

/** Options of {@link PostgresChangeLog.open}. */
export interface PostgresChangeLogOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** Seals every secret value the store writes (rows and snapshots) and opens what it reads. */
  readonly codec: SealingCodec;
  /** The data of an empty database (the seed); ignored when the database holds data. */
  readonly seed: () => ServerData;
  readonly logger: LocalServerLogger;
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
}

/** A change as the table holds it. */
interface ChangeRow {
  seq: number;
  record: string;
  change_set: string | null;
  committed_at_ms: number;
}

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

/** The oldest kept snapshot and every change kept after it. */
interface StoredBase {
  readonly seq: number;
  readonly data: ServerData;
  readonly committedAtMs: Map<string, number>;
  readonly rows: ChangeRow[];
}

/** A change set in its stored form. */
interface StoredChangeSet {
  service: boolean;
  configs: string[];
  flags: string[];
  secrets: string[];
}

interface RecordedChange {
  /** Sealed when recorded, so a data key a later write of the same batch makes never seals an earlier record. */
  readonly change: StoredChange;
  changeSet: StoredChangeSet | null;
  committedAtMs: number;
}

/** One write waiting for, or in, a transaction. */
interface PendingWrite {
  readonly write: StoreWrite<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** Ran before its transaction (`commitLater`): undone and run again if other replicas committed first. */
  ran: boolean;
  result?: unknown;
  failed?: Error;
  saved?: SavedServices;
  records: RecordedChange[];
  actions: Array<() => void>;
  /** While its run's effects are in memory and not yet committed: resolves true once committed, false once undone. */
  settled?: Promise<boolean>;
  settle?: (committed: boolean) => void;
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

/** Tries of one batch against other replicas' commits before it is refused (503). */
const MAX_COMMIT_ATTEMPTS = 50;

/**
 * How long a stream whose `Last-Event-ID` is ahead waits for this replica to
 * read what is committed, in ms: well within a client's wait for the
 * stream's headers (10 s by default), generous for a loaded database.
 */
const AHEAD_READ_MS = 5000;

/** Bytes of records committed together at most (a single larger write goes alone). */
const BATCH_BYTES = 64 * 1024;

/** See the file's comment. */
export class PostgresChangeLog implements ChangeLog {
  private store: Store | undefined;
  private applied = 0;
  private pendingRows: ChangeRow[] = [];
  private readonly queue: PendingWrite[] = [];
  private draining: Promise<void> | undefined;
  /** Checkpoints asked for while writes drain: taken between two batches, so a steady flow of writes never holds one back. */
  private checkpoints: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private current: PendingWrite | undefined;
  private applying = false;
  /** Writes that ran here and are neither committed nor undone yet. */
  private readonly unsettled = new Set<PendingWrite>();
  private sinceSnapshot = 0;
  private checkTimer: NodeJS.Timeout | undefined;
  private catchingUp: Promise<void> | undefined;
  private closed = false;
  private listening: { unlisten(): Promise<void> } | undefined;
  private catchUpAgain = false;
  /** The other replicas as their last heartbeats said. */
  private peers: ReplicaInfo[] = [];
  /** The peers' digests per service, with the sequence number each had applied. */
  private peerDigests: Array<{ appliedSeq: number; digests: Record<string, string> }> = [];
  private checking = false;
  /** Streams open on this replica, for the heartbeat. */
  streamCount: () => number = () => 0;
  /** Where the check reports each service as differing or in step; without it, nothing is compared. */
  drift: ServiceDrift | undefined;

  private constructor(
    private readonly sql: PostgresSql,
    private readonly options: PostgresChangeLogOptions,
  ) {}

  /**
   * Connects, migrates, seeds an empty database, and loads the oldest kept
   * snapshot.
   *
   * @throws StoreOpenError when PostgreSQL cannot be reached, its schema is too new, or the driver is missing.
   */
  static async open(options: PostgresChangeLogOptions): Promise<PostgresOpened> {
    const sql = await connectPostgres(options.url, { max: 4, connectTimeoutSeconds: 5 });
    const where = redactPostgresUrl(options.url);
    try {
      await sql`SELECT 1`;
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      throw new StoreOpenError(`cannot reach PostgreSQL at ${where}: ${(error as Error).message}`, { cause: error });
    }
    try {
      await migrate(sql);
      const log = new PostgresChangeLog(sql, options);
      const seeded = await log.seedIfEmpty();
      const loaded = await log.loadBase();
      return { log, seeded, ...loaded };
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      // A bad seed or a refused schema says so itself.
      if (error instanceof LocalServerError) throw error;
      throw new StoreOpenError(`cannot open the store at ${where}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Binds the store built on the loaded snapshot, applies every change kept
   * after it (which fills the replay history), then listens for commits.
   */
  async attach(store: Store): Promise<void> {
    this.store = store;
    this.applyRows(this.pendingRows);
    this.pendingRows = [];
    await this.catchUp();
    this.listening = await this.sql.listen(
      CHANGES_CHANNEL,
      (payload) => {
        if (Number(payload) > this.applied) this.scheduleCatchUp();
      },
      // Runs again on every reconnect of the LISTEN connection: what was missed meanwhile is read now.
      () => this.scheduleCatchUp(),
    );
    // The first heartbeat now, not a check later: a replica counts (a rotation's 409 guard sees it) once attached.
    await this.check();
    const interval = this.options.checkIntervalMs ?? 5000;
    this.checkTimer = setInterval(() => void this.check(), interval);
    this.checkTimer.unref();
  }

  /**
   * A client saw a revision this replica has not applied: read what is
   * committed now rather than at the next check. True once it is applied;
   * false when the database did not answer within {@link AHEAD_READ_MS}.
   */
  behind(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), AHEAD_READ_MS);
      timer.unref();
    });
    const read = this.readHead().then(
      () => true,
      (error: Error) => {
        this.options.logger.error(`could not read the changes of other replicas: ${error.message}`);
        return false;
      },
    );
    return Promise.race([read, late]).finally(() => clearTimeout(timer));
  }

  /** Long enough for any replica that can reach the database to apply what another committed. */
  readonly aheadHoldMs = 30_000;

  /** The fleet as the heartbeats show it: this replica now, and every peer seen within three checks. */
  fleetView(self: LocalReplica): FleetView {
    return {
      replicas: () => [
        { id: self.id, streams: self.streams(), revisions: self.revisions(), seenAt: this.options.now() },
        ...this.peers,
      ],
    };
  }

  /** The secret-write rate limit shared by every replica. */
  rateLimiter(): WriteRateLimiter {
    return new PostgresRateLimiter(this.sql);
  }

  /** The last sequence number applied here. */
  get appliedSeq(): number {
    return this.applied;
  }

  record(change: StateChange): void {
    if (this.applying) return;
    if (this.current === undefined) {
      throw new Error(`a ${change.type} change was made outside a write: it would never reach the database`);
    }
    // A service's first secret adds its data key's record (to the data too) before it.
    for (const stored of this.options.codec.sealChange(change, this.requireStore().data)) {
      this.current.records.push({ change: stored, changeSet: null, committedAtMs: this.options.now() });
    }
  }

  revised(change: StoreChange): void {
    if (this.applying || this.current === undefined) return;
    const records = this.current.records;
    for (let i = records.length - 1; i >= 0; i--) {
      const recorded = records[i]!;
      const c = recorded.change;
      if ('slug' in c && c.slug === change.slug && 'revision' in c && c.revision === change.revision) {
        recorded.changeSet = storedChangeSet(change.changes);
        recorded.committedAtMs = change.committedAtMs;
        return;
      }
    }
  }

  afterDurable(action: () => void): void {
    if (this.current !== undefined) this.current.actions.push(action);
    else action();
  }

  /** Resolves once every write queued so far has settled; rejects when one was undone (a read may have seen it). */
  /**
   * Resolves once every write whose effects are in memory now is committed;
   * rejects when one was undone instead (what was read meanwhile may show it).
   * Writes made later are not waited for, so a steady flow of writes never
   * holds a read back.
   */
  whenDurable(): Promise<void> {
    // The read path's common case, as cheap as the file store's: nothing unsettled, nothing to wait for.
    if (this.unsettled.size === 0) return Promise.resolve();
    return Promise.all([...this.unsettled].map((p) => p.settled!)).then((outcomes) => {
      if (outcomes.includes(false)) throw new StoreUnavailableError('a write in progress could not be committed');
    });
  }

  commit<T>(write: StoreWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ write, resolve: resolve as (v: unknown) => void, reject, ran: false, records: [], actions: [] });
    });
  }

  commitLater<T>(write: StoreWrite<T>): T {
    const pending: PendingWrite = {
      write,
      resolve: () => undefined,
      reject: (error) => this.options.logger.error(`a write made in process could not be committed: ${error.message}`),
      ran: false,
      records: [],
      actions: [],
    };
    this.run(pending);
    if (pending.failed) throw pending.failed;
    this.enqueue(pending);
    return pending.result as T;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.checkTimer) clearInterval(this.checkTimer);
    while (this.draining) await this.draining;
    await this.listening?.unlisten().catch(() => undefined);
    await this.sql`DELETE FROM vane_replicas WHERE id = ${this.options.replicaId}`.catch(() => undefined);
    await this.sql.end({ timeout: 2 });
  }

  private enqueue(pending: PendingWrite): void {
    if (this.closed) {
      pending.reject(new StoreUnavailableError('the store is closed'));
      return;
    }
    this.queue.push(pending);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /**
   * Commits the queued writes, a batch at a time, until none is left. A
   * batch is inserted with the next sequence numbers in one statement (with
   * its NOTIFY): the primary key on the sequence number is the fleet's lock.
   * When another replica committed first, the insert fails on it; the batch
   * is undone, what was committed is applied, and the batch runs again on
   * that latest state. No transaction stays open across round trips, so a
   * connection lost mid-write leaves nothing behind to roll back.
   */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      try {
        await this.commitBatch(batch);
        for (const pending of batch) {
          if (pending.failed) pending.reject(pending.failed);
          else {
            for (const action of pending.actions) action();
            this.unsettled.delete(pending);
            pending.settle?.(true);
            pending.resolve(pending.result);
          }
        }
        if (this.sinceSnapshot >= (this.options.snapshotEvery ?? 500)) await this.snapshot();
      } catch (error) {
        this.undoRan(batch);
        const unavailable =
          error instanceof StoreUnavailableError
            ? error
            : new StoreUnavailableError(`the write could not be committed to PostgreSQL: ${(error as Error).message}`, {
                cause: error,
              });
        for (const pending of batch) pending.reject(pending.failed ?? unavailable);
      }
      await this.takeCheckpoints();
    }
    await this.takeCheckpoints();
  }

  /** Takes the checkpoints asked for so far, at once (nothing runs meanwhile). */
  private async takeCheckpoints(): Promise<void> {
    if (this.checkpoints.length === 0) return;
    const waiting = this.checkpoints.splice(0);
    try {
      await this.rewriteSealed();
      for (const waiter of waiting) waiter.resolve();
    } catch (error) {
      for (const waiter of waiting) waiter.reject(error as Error);
    }
  }

  private async commitBatch(batch: PendingWrite[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const committed = await this.sql<ChangeRow[]>`SELECT seq, record, change_set, committed_at_ms
        FROM vane_changes WHERE seq > ${this.applied} ORDER BY seq`;
      if (committed.length > 0) {
        // Writes run here before were made on a state that is no longer the latest.
        this.undoRan(batch);
        this.applyRows(committed);
      }
      for (const pending of batch) if (!pending.ran) this.run(pending);
      const records = batch.flatMap((p) => (p.failed ? [] : p.records));
      if (records.length === 0) return;
      const values = records.map((r, i) => storedRow(this.applied + 1 + i, r));
      try {
        await this.sql`WITH inserted AS (
            INSERT INTO vane_changes ${this.sql(values, 'seq', 'slug', 'revision', 'record', 'change_set', 'committed_at_ms', 'bytes')}
            RETURNING seq
          )
          SELECT pg_notify(${CHANGES_CHANNEL}, max(seq)::text) FROM inserted`;
      } catch (error) {
        // 23505: a sequence number (or a revision) another replica committed first.
        if ((error as { code?: unknown }).code !== '23505') throw error;
        if (attempt >= MAX_COMMIT_ATTEMPTS) {
          throw new StoreUnavailableError(
            `the write lost to other replicas' writes ${attempt} times in a row; retry it`,
            { cause: error },
          );
        }
        continue;
      }
      this.sinceSnapshot += records.length;
      this.applied += records.length;
      return;
    }
  }

  /** Undoes every write that ran but is not committed: those queued after the batch first (made on top of it). */
  private undoRan(batch: PendingWrite[]): void {
    this.undo(this.queue.filter((p) => p.ran));
    this.undo(batch.filter((p) => p.ran));
  }

  /**
   * The next writes to commit together: up to 64, and records of at most
   * {@link BATCH_BYTES} among those already run, so one commit never sends
   * streams a burst of large patches that would drop readers keeping up.
   */
  private takeBatch(): PendingWrite[] {
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

  /** Runs one write against the store, keeping what it needs to be undone and what it recorded. */
  private run(pending: PendingWrite): void {
    const store = this.requireStore();
    pending.saved = store.saveServices(pending.write.slugs);
    pending.records = [];
    pending.actions = [];
    pending.failed = undefined;
    this.current = pending;
    try {
      pending.result = pending.write.run();
      pending.ran = true;
      pending.settled = new Promise<boolean>((resolve) => (pending.settle = resolve));
      this.unsettled.add(pending);
    } catch (error) {
      pending.failed = error as Error;
      // The store validates before it changes anything, but a write that failed half way must leave nothing.
      if (pending.records.length > 0) store.restoreServices(pending.saved);
      pending.records = [];
      pending.actions = [];
    } finally {
      this.current = undefined;
    }
  }

  /** Undoes writes that ran but were not committed, newest first. */
  private undo(ran: PendingWrite[]): void {
    const store = this.requireStore();
    for (const pending of [...ran].reverse()) {
      if (pending.saved && pending.records.length > 0) store.restoreServices(pending.saved);
      this.unsettled.delete(pending);
      pending.settle?.(false);
      pending.settle = pending.settled = undefined;
      pending.ran = false;
      pending.records = [];
      pending.actions = [];
    }
  }

  /** How recently a replica must have sent its heartbeat to count as one of the fleet: three checks. */
  private liveMs(): number {
    return 3 * (this.options.checkIntervalMs ?? 5000);
  }

  /**
   * The live replicas (heartbeat within three checks), this one aside, that
   * do not hold root key `rootKeyId`, as their last heartbeat says: a
   * rotation to it would leave them unable to open data keys made after it.
   */
  async replicasLacking(rootKeyId: string): Promise<string[]> {
    const rows = await this.sql<{ id: string; root_keys: string | null }[]>`
      SELECT id, root_keys FROM vane_replicas
      WHERE id <> ${this.options.replicaId} AND seen_at > now() - make_interval(secs => ${this.liveMs() / 1000})
      ORDER BY id`;
    return rows
      .filter((row) => !(JSON.parse(row.root_keys ?? '[]') as string[]).includes(rootKeyId))
      .map((row) => row.id);
  }

  /** Applies rows other replicas committed, in order; a gap means the history this replica needs is gone. */
  private applyRows(rows: readonly ChangeRow[]): void {
    const store = this.requireStore();
    this.applying = true;
    try {
      for (const row of rows) {
        if (row.seq <= this.applied) continue;
        if (row.seq !== this.applied + 1) {
          throw new StoreUnavailableError(
            `change ${this.applied + 1} is no longer in the database (next is ${row.seq}): restart this replica`,
          );
        }
        const changeSet = row.change_set === null ? null : loadedChangeSet(JSON.parse(row.change_set));
        const change = this.options.codec.openChange(JSON.parse(row.record) as StoredChange, store.data);
        store.applyCommitted(change, changeSet, Number(row.committed_at_ms));
        this.applied = row.seq;
        this.sinceSnapshot++;
      }
    } finally {
      this.applying = false;
    }
  }

  private scheduleCatchUp(): void {
    if (this.closed || this.store === undefined) return;
    void this.catchUp().catch((error: Error) =>
      this.options.logger.error(`could not read the changes of other replicas: ${error.message}`),
    );
  }

  /** Resolves once every change committed when it was called is applied here; rejects when it cannot be read. */
  private async readHead(): Promise<void> {
    const [row] = await this.sql<{ head: number | null }[]>`SELECT max(seq) AS head FROM vane_changes`;
    const head = Number(row?.head ?? 0);
    // A catch-up that met a write applies nothing itself: the write's commit applies what it read.
    while (this.applied < head) {
      if (this.closed) throw new StoreUnavailableError('the store is closed');
      await this.catchUp();
    }
  }

  /**
   * Applies every committed change after the last one applied. Concurrent calls share one read, and a
   * call made while a read is out runs one more after it: that read may have missed its commit.
   */
  private catchUp(): Promise<void> {
    if (this.catchingUp !== undefined) {
      this.catchUpAgain = true;
      return this.catchingUp;
    }
    this.catchingUp = (async () => {
      try {
        do {
          this.catchUpAgain = false;
          // Inside the drain, writes read and apply what is new themselves; apply nothing in between.
          while (this.draining) await this.draining;
          const rows = await this.sql<ChangeRow[]>`SELECT seq, record, change_set, committed_at_ms
            FROM vane_changes WHERE seq > ${this.applied} ORDER BY seq`;
          if (this.draining) return;
          this.applyRows(rows);
        } while (this.catchUpAgain && !this.closed);
      } finally {
        this.catchingUp = undefined;
      }
    })();
    return this.catchingUp;
  }

  /**
   * The backstop: heartbeat (with what this replica serves), read the head,
   * catch up when behind, compare with the store and the peers (reloading
   * when past the drift bound), and turn flag schedules no replica turned.
   */
  private async check(): Promise<void> {
    if (this.closed || this.store === undefined || this.checking) return;
    this.checking = true;
    try {
      const store = this.store;
      const revisions = JSON.stringify(
        Object.fromEntries(store.slugs().map((slug) => [slug, store.service(slug)!.revision])),
      );
      // Read in the same turn as `applied`: a peer at the same sequence number must serve these.
      const digests = JSON.stringify(Object.fromEntries([...this.served()].map(([slug, s]) => [slug, s.digest])));
      const rootKeys = JSON.stringify(this.options.codec.heldRootKeyIds());
      const liveMs = this.liveMs();
      // One statement: the heartbeat, the head (overall and per service changed since this replica's), and the peers
      // seen lately (their streams for the rebalancer, their digests for the drift check).
      const rows = await this.sql<{ head: number | null; heads: string; peers: string }[]>`
        WITH beat AS (
          INSERT INTO vane_replicas (id, seen_at, applied_seq, streams, revisions, digests, root_keys)
          VALUES (${this.options.replicaId}, now(), ${this.applied}, ${this.streamCount()}, ${revisions}, ${digests},
            ${rootKeys})
          ON CONFLICT (id) DO UPDATE SET seen_at = now(), applied_seq = excluded.applied_seq,
            streams = excluded.streams, revisions = excluded.revisions, digests = excluded.digests,
            root_keys = excluded.root_keys
        )
        SELECT (SELECT max(seq) FROM vane_changes) AS head,
          (SELECT coalesce(json_object_agg(slug, revision), '{}'::json)::text FROM (
            SELECT slug, max(revision) AS revision FROM vane_changes
            WHERE seq > ${this.applied} AND revision IS NOT NULL GROUP BY slug) h) AS heads,
          (SELECT coalesce(json_agg(json_build_object('id', id, 'streams', streams, 'revisions', revisions,
              'seen_at_ms', (extract(epoch FROM seen_at) * 1000)::bigint,
              'applied_seq', applied_seq, 'digests', digests)), '[]'::json)::text
            FROM vane_replicas
            WHERE id <> ${this.options.replicaId} AND seen_at > now() - make_interval(secs => ${liveMs / 1000})) AS peers`;
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
      if (head > this.applied) {
        // A catch-up that fails (history gone, say) is what the drift check below is for.
        await this.catchUp().catch((error: Error) =>
          this.options.logger.error(`could not read the changes of other replicas: ${error.message}`),
        );
      }
      await this.compare(heads);
      for (const slug of store.dueBoundaries()) {
        await this.commit({ slugs: [slug], run: () => store.turnBoundaries(slug) });
      }
    } catch (error) {
      this.options.logger.error(`the store check failed: ${(error as Error).message}`);
    } finally {
      this.checking = false;
    }
  }

  /** What this replica serves per service, except services with a write in flight here. */
  private served(): Map<string, ServedService> {
    const store = this.requireStore();
    const busy = this.busy();
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

  /** Services a write queued, running or not yet committed here may change: their state is not the store's yet. */
  private busy(): Set<string> | 'all' {
    const busy = new Set<string>();
    for (const pending of [...this.queue, ...this.unsettled, ...(this.current ? [this.current] : [])]) {
      if (pending.write.slugs === 'all') return 'all';
      for (const slug of pending.write.slugs) busy.add(slug);
    }
    return busy;
  }

  /**
   * Reports each service as in step or differing (from the head the
   * heartbeat read, and from the peers that had applied what this replica
   * has); any past the drift bound, the whole state is reloaded.
   */
  private async compare(heads: Record<string, number>): Promise<void> {
    const drift = this.drift;
    if (drift === undefined) return;
    const busy = this.busy();
    if (busy === 'all') return;
    const outcome = compareWithStore({
      served: this.served(),
      busy,
      heads,
      peers: this.peerDigests.filter((p) => p.appliedSeq === this.applied).map((p) => p.digests),
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
    while (this.draining) await this.draining;
    const base = await this.readBase();
    // A write began on the state being replaced meanwhile: the next check reloads instead.
    if (this.draining || this.unsettled.size > 0 || this.closed) return;
    const data = base.data;
    const committedAtMs = base.committedAtMs;
    let seq = base.seq;
    for (const row of base.rows) {
      const change = this.options.codec.openChange(JSON.parse(row.record) as StoredChange, data);
      applyStateChange(data, change);
      if (row.change_set !== null && 'slug' in change) committedAtMs.set(change.slug, Number(row.committed_at_ms));
      seq = row.seq;
    }
    this.requireStore().reload(data, committedAtMs);
    this.applied = Number(seq);
  }

  /**
   * Seeds an empty database: the first replica to start does it, once (the
   * snapshot's primary key settles a race between replicas starting together).
   */
  private async seedIfEmpty(): Promise<boolean> {
    const [counts] = await this.sql<{ snapshots: number; changes: number }[]>`
      SELECT (SELECT count(*) FROM vane_snapshots)::int AS snapshots, (SELECT count(*) FROM vane_changes)::int AS changes`;
    if (counts!.snapshots > 0 || counts!.changes > 0) return false;
    const data = this.options.seed();
    const now = this.options.now();
    const committed = Object.fromEntries([...data.services.keys()].map((slug) => [slug, now]));
    const inserted = await this.sql`INSERT INTO vane_snapshots (seq, data, committed)
      SELECT 0, ${this.sealedText(data)}, ${JSON.stringify(committed)}
      WHERE NOT EXISTS (SELECT 1 FROM vane_changes)
      ON CONFLICT (seq) DO NOTHING`;
    return inserted.count === 1;
  }

  /** The oldest kept snapshot, and the changes after it (applied once the store is attached). */
  private async loadBase(): Promise<{ data: ServerData; committedAtMs: Map<string, number> }> {
    const base = await this.readBase();
    this.applied = base.seq;
    this.pendingRows = base.rows;
    return { data: base.data, committedAtMs: base.committedAtMs };
  }

  /** Reads the oldest kept snapshot and every change after it, opened. */
  private async readBase(): Promise<StoredBase> {
    for (let attempt = 1; ; attempt++) {
      const [base] = await this.sql<{ seq: number; data: string; committed: string }[]>`
        SELECT seq, data, committed FROM vane_snapshots ORDER BY seq LIMIT 1`;
      if (base === undefined) throw new StoreOpenError('the database holds changes but no snapshot to apply them to');
      const rows = await this.sql<ChangeRow[]>`SELECT seq, record, change_set, committed_at_ms
        FROM vane_changes WHERE seq > ${base.seq} ORDER BY seq`;
      // Another replica pruned history between the two reads: read again.
      if (rows.length > 0 && rows[0]!.seq !== Number(base.seq) + 1 && attempt < 5) continue;
      const data = parseServerDataJson(base.data, `snapshot ${base.seq}`, {
        openSealed: (json) => this.options.codec.openState(json),
      });
      const missing = this.options.codec.missingRootKeys(data);
      if (missing.length > 0) throw missingKeyError(missing);
      const committed = JSON.parse(base.committed) as Record<string, number>;
      return { seq: Number(base.seq), data, committedAtMs: new Map(Object.entries(committed)), rows };
    }
  }

  /**
   * Writes the whole state as a snapshot at the current sequence number and
   * drops what replay no longer needs: changes older than the history's age or
   * beyond its bytes, and the snapshots before the one they start from.
   */
  private async snapshot(): Promise<void> {
    const store = this.requireStore();
    const committed = JSON.stringify(Object.fromEntries(store.lastCommittedAt()));
    const data = this.sealedText(store.data);
    const ageMs = this.options.historyAgeMs ?? 3_600_000;
    const bytes = this.options.historyBytes ?? 8 * 1024 * 1024;
    const at = this.applied;
    try {
      // Statements, not a transaction: each is safe alone, and the snapshot is written only at the head.
      const written = await this.sql`INSERT INTO vane_snapshots (seq, data, committed)
        SELECT ${at}, ${data}, ${committed}
        WHERE (SELECT coalesce(max(seq), 0) FROM vane_changes) = ${at}
        ON CONFLICT (seq) DO NOTHING`;
      // Another replica committed since: its snapshot is for it to take.
      if (written.count === 1) {
        // The first change replay must keep: the oldest within both bounds.
        const [keep] = await this.sql<{ seq: number | null }[]>`
          SELECT min(seq) AS seq FROM (
            SELECT seq, committed_at_ms, sum(bytes) OVER (ORDER BY seq DESC) AS tail FROM vane_changes
          ) t WHERE tail <= ${bytes} AND committed_at_ms >= ${this.options.now() - ageMs}`;
        const keepFrom = keep?.seq === null || keep?.seq === undefined ? at + 1 : Number(keep.seq);
        const [base] = await this.sql<{ seq: number | null }[]>`
          SELECT max(seq) AS seq FROM vane_snapshots WHERE seq < ${keepFrom}`;
        if (base?.seq !== null && base?.seq !== undefined) {
          // A replica loading meanwhile may find a gap after its snapshot: it loads again (loadBase).
          await this.sql`DELETE FROM vane_snapshots WHERE seq < ${base.seq}`;
          await this.sql`DELETE FROM vane_changes WHERE seq <= ${base.seq}`;
        }
      }
      this.sinceSnapshot = 0;
    } catch (error) {
      this.options.logger.error(`could not write a snapshot: ${(error as Error).message}`);
    }
  }

  /** The state form of `data`, every secret value sealed. */
  private sealedText(data: ServerData): string {
    const state = serializeServerData(data) as { [key: string]: JsonValue };
    this.options.codec.sealState(state, data);
    return JSON.stringify(state);
  }

  /**
   * A snapshot of the whole state now, sealed with the newest keys, the
   * older snapshots dropped, and the data-key records of the change history
   * wrapped again by the current root key: after a root-key rotation no
   * stored byte needs the old key. The history itself stays, so a replica
   * still applying it (or a client replaying it) is not cut off.
   */
  async checkpoint(): Promise<void> {
    if (this.draining) {
      await new Promise<void>((resolve, reject) => this.checkpoints.push({ resolve, reject }));
      return;
    }
    await this.rewriteSealed();
  }

  /** See {@link checkpoint}: not while a batch is being committed. */
  private async rewriteSealed(): Promise<void> {
    const store = this.requireStore();
    const at = this.applied;
    const committed = JSON.stringify(Object.fromEntries(store.lastCommittedAt()));
    // A replica behind another's checkpoint leaves it be: its own would be older, and may name keys since replaced.
    const written = await this.sql`INSERT INTO vane_snapshots (seq, data, committed)
      SELECT ${at}, ${this.sealedText(store.data)}, ${committed}
      WHERE NOT EXISTS (SELECT 1 FROM vane_snapshots WHERE seq > ${at})
      ON CONFLICT (seq) DO UPDATE SET data = excluded.data, committed = excluded.committed`;
    if (written.count === 1) await this.sql`DELETE FROM vane_snapshots WHERE seq < ${at}`;
    const codec = this.options.codec;
    // Without the root key the data names, this replica's own would be the old one: history is not its to rewrite.
    if (codec.missingRootKey !== undefined) return;
    // Up to what this replica applied: the records it knows its root key for (a later rotation is the next one's).
    const rows = await this.sql<{ seq: number; record: string }[]>`
      SELECT seq, record FROM vane_changes WHERE seq <= ${at} AND record LIKE '{"type":"data_key",%' ORDER BY seq`;
    const missing = new Set<string>();
    for (const row of rows) {
      const stored = JSON.parse(row.record) as Extract<StateChange, { type: 'data_key' }>;
      let dataKey: DataKeyRecord;
      try {
        dataKey = codec.rewrapped(stored.slug, stored.data_key);
      } catch {
        missing.add(stored.data_key.root_key);
        continue;
      }
      if (dataKey === stored.data_key) continue;
      // Only the row as read: the same data key, wrapped by the root key the data names.
      await this.sql`UPDATE vane_changes SET record = ${JSON.stringify({ ...stored, data_key: dataKey })}
        WHERE seq = ${row.seq} AND record = ${row.record}`;
    }
    if (missing.size > 0) {
      this.options.logger.error(
        `change history still holds data keys wrapped by root key ${[...missing].join(', ')}, which this replica does not hold`,
      );
    }
    this.sinceSnapshot = 0;
  }

  private requireStore(): Store {
    if (this.store === undefined) throw new Error('the change log has no store attached yet');
    return this.store;
  }
}

function storedChangeSet(changes: ChangeSet): StoredChangeSet {
  return {
    service: changes.service,
    configs: [...changes.configs],
    flags: [...changes.flags],
    secrets: [...changes.secrets],
  };
}

function loadedChangeSet(stored: StoredChangeSet): ChangeSet {
  return {
    service: stored.service,
    configs: new Set(stored.configs),
    flags: new Set(stored.flags),
    secrets: new Set(stored.secrets),
  };
}

function storedRow(
  seq: number,
  recorded: { change: StoredChange; changeSet: StoredChangeSet | null; committedAtMs: number },
): Record<string, string | number | null> {
  const record = JSON.stringify(recorded.change);
  const changeSet = recorded.changeSet === null ? null : JSON.stringify(recorded.changeSet);
  const change = recorded.change;
  return {
    seq,
    slug: 'slug' in change ? change.slug : null,
    revision: 'revision' in change && recorded.changeSet !== null ? change.revision : null,
    record,
    change_set: changeSet,
    committed_at_ms: recorded.committedAtMs,
    bytes: Buffer.byteLength(record) + (changeSet === null ? 0 : Buffer.byteLength(changeSet)),
  };
}
