/**
 * Writes run in memory ahead of their commit: each is run against the
 * store with what it needs to be undone kept (the services it may touch, as
 * they were), and what it recorded collected for its insert. Until it is
 * committed or undone, reads are given the state as last committed, which
 * the oldest such write saved.
 */
import type { CommittedService, StoreWrite } from '../domain/change-log.js';
import type { CancellableTimer } from '../domain/clock.js';
import type { SavedServices, Store, CommittedRevision } from '../domain/store.js';
import type { StateChange } from '../domain/state-change.js';
import type { SealingCodec } from '../sealing/sealing-codec.js';
import { storedChangeSet, type RecordedChange } from './change-rows.js';

/** One write waiting for, or in, a commit. */
export interface PendingWrite {
  readonly write: StoreWrite<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** Ran (its effects are in memory) and neither committed nor undone yet. */
  ran: boolean;
  result?: unknown;
  failed?: Error;
  saved?: SavedServices;
  records: RecordedChange[];
  actions: Array<() => void>;
  /**
   * Where its client stands: `waiting` while its records were never sent (a refusal then means never
   * committed), `sending` while they are sent and unanswered, `answered` once its client has an answer.
   */
  phase: 'waiting' | 'sending' | 'answered';
  /** A `commit`'s deadline: it is answered by then whatever the database does. */
  deadline?: CancellableTimer;
  /** When that deadline passes, in ms on the replica's clock; undefined for a write made in process. */
  deadlineAt?: number;
  /** Resolves once it left the pipeline: committed, or refused for good. */
  readonly finished: Promise<void>;
  readonly finish: () => void;
}

/** A write entering the pipeline: not run, nothing sent. */
export function newPending(
  write: StoreWrite<unknown>,
  resolve: (value: unknown) => void,
  reject: (error: Error) => void,
): PendingWrite {
  let finish!: () => void;
  const finished = new Promise<void>((done) => (finish = done));
  return { write, resolve, reject, ran: false, records: [], actions: [], phase: 'waiting', finished, finish };
}

const RESOLVED = Promise.resolve();

/** See the file's comment. */
export class WriteRuns {
  private store: Store | undefined;
  private current: PendingWrite | undefined;
  /** Writes that ran here and are neither committed nor undone yet, in the order they ran. */
  private readonly unsettled = new Set<PendingWrite>();

  /**
   * @param codec - seals each record as it is made.
   * @param applying - true while rows committed elsewhere are applied: their changes are not a write's.
   * @param now - current time in ms.
   */
  constructor(
    private readonly codec: SealingCodec,
    private readonly applying: () => boolean,
    private readonly now: () => number,
  ) {}

  /** Binds the store writes run against. */
  bind(store: Store): void {
    this.store = store;
  }

  /** Whether a write's effects are in memory uncommitted. */
  get anyUnsettled(): boolean {
    return this.unsettled.size > 0;
  }

  /** The writes running or run and not settled, for {@link busy}. */
  inFlight(): PendingWrite[] {
    return [...this.unsettled, ...(this.current ? [this.current] : [])];
  }

  /** Runs one write against the store, keeping what it needs to be undone and what it recorded. */
  run(pending: PendingWrite): void {
    const store = this.requireStore();
    pending.saved = store.saveServices(pending.write.slugs);
    pending.records = [];
    pending.actions = [];
    pending.failed = undefined;
    this.current = pending;
    try {
      pending.result = pending.write.run();
      pending.ran = true;
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

  /** A write committed: its effects are the committed state now. */
  committed(pending: PendingWrite): void {
    this.unsettled.delete(pending);
  }

  /** Undoes writes that ran but were not committed, newest first. */
  undo(ran: readonly PendingWrite[]): void {
    const store = this.requireStore();
    for (const pending of [...ran].reverse()) {
      if (pending.saved && pending.records.length > 0) store.restoreServices(pending.saved);
      this.unsettled.delete(pending);
      pending.ran = false;
      pending.records = [];
      pending.actions = [];
    }
  }

  /**
   * The state of `slug` as last committed, where a write run here and not
   * yet committed changed it in memory (what the oldest such write saved
   * before it ran); undefined when nothing in flight touches it.
   */
  committedService(slug: string): CommittedService | undefined {
    for (const pending of this.unsettled) {
      const slugs = pending.write.slugs;
      if (slugs !== 'all' && !slugs.includes(slug)) continue;
      const kept = pending.saved?.services.get(slug);
      // A service the write created: nothing committed to show, the caller's key came with it.
      if (kept === undefined) return undefined;
      return { service: kept.service, published: kept.published };
    }
    return undefined;
  }

  /**
   * Resolves once every write whose effects are in memory now has left the
   * pipeline (committed, or refused and undone); never rejects: another
   * write's failure is that write's own.
   */
  whenSettled(): Promise<void> {
    if (this.unsettled.size === 0) return RESOLVED;
    return Promise.all([...this.unsettled].map((p) => p.finished)).then(() => undefined);
  }

  /** Records a change the running write just made in memory (a change applied from the database is not one). */
  record(change: StateChange): void {
    if (this.applying()) return;
    if (this.current === undefined) {
      throw new Error(`a ${change.type} change was made outside a write: it would never reach the database`);
    }
    // A service's first secret adds its data key's record (to the data too) before it.
    for (const stored of this.codec.sealChange(change, this.requireStore().data)) {
      this.current.records.push({ change: stored, changeSet: null, committedAtMs: this.now() });
    }
  }

  /** The revision a recorded change made: kept with its record. */
  revised(change: CommittedRevision): void {
    if (this.applying() || this.current === undefined) return;
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

  /** Runs `action` once the running write is committed (at once outside a write). */
  afterDurable(action: () => void): void {
    if (this.current !== undefined) this.current.actions.push(action);
    else action();
  }

  private requireStore(): Store {
    if (this.store === undefined) throw new Error('the change log has no store attached yet');
    return this.store;
  }
}
