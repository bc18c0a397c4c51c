/**
 * Durability of the `--state` file: every change is appended to a journal
 * beside it (`<state>.journal`) and fsynced before anything it changed is
 * visible; the journal is folded into the state file in the background.
 */
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CAUGHT_UP, commitThenWait, type ChangeLog, type StoreWrite } from '../domain/change-log.js';
import { encodeJournalRecord, JournalFileError, readJournalFile } from './journal-file.js';
import type { ServerData } from '../domain/model.js';
import { applyStateChange, type StateChange } from '../domain/state-change.js';
import { removeCrashLeftovers, renderStateText, StateFile, syncDirectory } from './state-file.js';
import { missingKeyError, type SealingCodec } from '../sealing/sealing-codec.js';
import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/** The journal could not be written: what was recorded since is not durable, and no write is answered any more. */
export class JournalWriteError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_JOURNAL_WRITE_FAILED' as const;

  /** @param message - what could not be written, naming the file; the file system's error is the cause. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/** What {@link StateJournal.open} found on disk, for the log. */
export interface JournalRecovery {
  /** Whether the data came from the state file (else from `initial`). */
  readonly restored: boolean;
  /** Journal records replayed onto the state file. */
  readonly replayed: number;
  /** Bytes of a torn last record that were dropped. */
  readonly droppedBytes: number;
  /** Temporary files of a crashed write that were removed. */
  readonly removedLeftovers: readonly string[];
}

/** Options of {@link StateJournal.open}. */
export interface StateJournalOptions {
  /** The data when there is no state file yet (the seed). */
  initial: () => ServerData;
  /** Seals what is written (secret values) and opens what is read; its keyring must hold every root key the files need. */
  codec: SealingCodec;
  /** Adjusts restored data before it is saved and served (the local server moves revisions on). */
  onRestore?: (data: ServerData) => void;
  /** Receives a failed background compaction; the journal stops accepting writes after one. */
  onError: (error: Error) => void;
  /**
   * Compact once the journal is larger than this many bytes and than the
   * last state file written (so compaction costs at most about as much I/O
   * as the journal itself). @default 1048576
   */
  compactBytes?: number;
}

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * The change log of a server with a state file.
 *
 * Group commit: records made while a write is under way go together in the
 * next write and fsync, so concurrent writers share the cost of one fsync
 * each round. Compaction renders the state right after a round (the data
 * then holds exactly what the journal holds), moves the journal aside,
 * writes the state file in the background and removes the old journal;
 * replaying it again after a crash in between is harmless because every
 * record states the result of its change.
 */
export class StateJournal implements ChangeLog {
  private readonly stateFile: StateFile;
  private readonly journalPath: string;
  private readonly oldJournalPath: string;
  private readonly compactBytes: number;
  private pending: Buffer[] = [];
  private recorded = 0;
  private durable = 0;
  private waiters: Waiter[] = [];
  private actions: Array<{ readonly seq: number; readonly action: () => void }> = [];
  private draining: Promise<void> | undefined;
  private compaction: Promise<void> | undefined;
  private journalBytes = 0;
  private failure: JournalWriteError | undefined;
  private closed = false;
  /** A checkpoint asked for a compaction whatever the journal's size. */
  private compactRequested = false;

  private constructor(
    private handle: FileHandle,
    statePath: string,
    private readonly data: ServerData,
    private stateBytes: number,
    private readonly options: StateJournalOptions,
  ) {
    this.stateFile = new StateFile(statePath, options.codec);
    this.journalPath = journalPathOf(statePath);
    this.oldJournalPath = `${this.journalPath}.old`;
    this.compactBytes = options.compactBytes ?? 1024 * 1024;
  }

  /**
   * Loads the state file and replays its journals (dropping a torn last
   * record), removes crash leftovers, writes the result as the new state file
   * and starts an empty journal.
   *
   * Nothing on disk is changed (no leftover removed, nothing written) before
   * the state and the journals have been read and opened whole.
   *
   * @throws SeedError for an unusable state file, JournalFileError for a damaged journal,
   *   RootKeyMissingError when they need a root key the codec's keyring lacks,
   *   SealedDataError for a sealed value that does not open where it is.
   */
  static async open(
    statePath: string,
    options: StateJournalOptions,
  ): Promise<{ journal: StateJournal; data: ServerData; recovery: JournalRecovery }> {
    const journalPath = journalPathOf(statePath);
    const { codec } = options;
    const stateFile = new StateFile(statePath, codec);
    const saved = stateFile.load();
    const older = readJournalFile(`${journalPath}.old`);
    const current = readJournalFile(journalPath);
    let data: ServerData;
    let replayed = 0;
    if (saved) {
      data = saved;
      for (const stored of [...(older?.changes ?? []), ...(current?.changes ?? [])]) {
        applyStateChange(data, codec.openChange(stored, data));
        replayed++;
      }
      const missing = codec.missingRootKeys(data);
      if (missing.length > 0) throw missingKeyError(missing);
      options.onRestore?.(data);
    } else {
      // A journal without its state file holds changes to data we do not have: starting from the seed would drop them.
      if (older || current) {
        throw new JournalFileError(
          `${journalPath}: a journal without its state file ${statePath}; restore the state file or remove the journal`,
        );
      }
      data = options.initial();
    }
    const removedLeftovers = await removeCrashLeftovers(statePath);
    const text = renderStateText(data, codec);
    await stateFile.writeText(text);
    await unlink(`${journalPath}.old`).catch(ignoreMissing);
    const handle = await openJournal(journalPath, 'w');
    await syncDirectory(dirname(statePath));
    const journal = new StateJournal(handle, statePath, data, Buffer.byteLength(text), options);
    return {
      journal,
      data,
      recovery: { restored: saved !== undefined, replayed, droppedBytes: current?.droppedBytes ?? 0, removedLeftovers },
    };
  }

  record(change: StateChange): void {
    if (this.closed) throw new JournalWriteError('the journal is closed');
    for (const stored of this.options.codec.sealChange(change, this.data)) {
      this.pending.push(encodeJournalRecord(stored));
    }
    this.recorded++;
    // On the next turn, so the changes of requests read in the same turn share one write.
    this.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
  }

  /** Nothing beyond the record is kept: the state file and the journal hold the data itself. */
  revised(): void {}

  /** Runs the write, then waits until the journal holds it. */
  commit<T>(write: StoreWrite<T>): Promise<T> {
    return commitThenWait(this, write);
  }

  /** Runs the write; the journal holds it once {@link whenDurable} resolves. */
  commitLater<T>(write: StoreWrite<T>): T {
    return write.run();
  }

  /** Nothing to read: a state file has one owner, which holds every revision. */
  behind(): Promise<boolean> {
    return CAUGHT_UP;
  }

  /** No other server can be ahead of a state file's owner. */
  readonly aheadHoldMs = 0;

  /** Reads show what is in memory, which is made durable right after: they wait for that. */
  readable(): Promise<void> {
    return this.whenDurable();
  }

  whenDurable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.durable >= this.recorded) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq: this.recorded, resolve, reject }));
  }

  afterDurable(action: () => void): void {
    if (this.failure) return;
    if (this.actions.length === 0 && this.durable >= this.recorded) action();
    else this.actions.push({ seq: this.recorded, action });
  }

  /**
   * Waits for pending writes, then folds the journal into the state file, so
   * after a clean stop the state file alone holds everything.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.draining;
    await this.compaction;
    try {
      if (!this.failure && this.journalBytes > 0) {
        await this.stateFile.writeText(renderStateText(this.data, this.options.codec));
        await this.handle.truncate(0);
        await this.handle.datasync();
        this.journalBytes = 0;
      }
    } catch (error) {
      // The journal still holds every change: the next start replays it.
      this.options.onError(new JournalWriteError('could not fold the journal into the state file', { cause: error }));
    } finally {
      await this.handle.close().catch(() => undefined);
    }
  }

  /**
   * Folds the journal into a new state file now, whatever its size, and
   * resolves once that file is on disk: after it, the files hold nothing
   * sealed under a root key no longer in use (a root-key rotation waits for
   * this), and every secret value is sealed by its service's newest data key.
   */
  async checkpoint(): Promise<void> {
    if (this.failure) throw this.failure;
    this.compactRequested = true;
    this.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
    while (this.compactRequested || this.draining !== undefined || this.compaction !== undefined) {
      await this.draining;
      await this.compaction;
      if (this.failure) throw this.failure;
    }
  }

  private async drain(): Promise<void> {
    while ((this.pending.length > 0 || this.compactRequested) && !this.failure) {
      if (this.compactRequested && this.compaction !== undefined) {
        // One compaction at a time: the requested one follows the one under way.
        await this.compaction;
        continue;
      }
      const batch = Buffer.concat(this.pending);
      this.pending = [];
      const seq = this.recorded;
      const forced = this.compactRequested && this.compaction === undefined;
      if (forced) this.compactRequested = false;
      // Rendered now, when the data holds exactly what this round makes durable.
      const compactText =
        forced || this.dueForCompaction(batch.length) ? renderStateText(this.data, this.options.codec) : undefined;
      try {
        if (batch.length > 0) {
          await this.handle.write(batch);
          await this.handle.datasync();
        }
      } catch (error) {
        this.fail(new JournalWriteError(`could not write the journal ${this.journalPath}`, { cause: error }));
        break;
      }
      this.journalBytes += batch.length;
      this.settle(seq);
      if (compactText !== undefined) await this.startCompaction(compactText);
    }
    this.draining = undefined;
  }

  private dueForCompaction(batchBytes: number): boolean {
    const size = this.journalBytes + batchBytes;
    return this.compaction === undefined && size > this.compactBytes && size > this.stateBytes;
  }

  private async startCompaction(text: string): Promise<void> {
    try {
      await this.handle.close();
      await rename(this.journalPath, this.oldJournalPath);
      this.handle = await openJournal(this.journalPath, 'w');
      await syncDirectory(dirname(this.journalPath));
    } catch (error) {
      this.fail(new JournalWriteError(`could not start a new journal ${this.journalPath}`, { cause: error }));
      return;
    }
    this.journalBytes = 0;
    this.stateBytes = Buffer.byteLength(text);
    this.compaction = this.stateFile
      .writeText(text)
      .then(() => unlink(this.oldJournalPath))
      .catch((error: unknown) => {
        // The old journal is still needed and the next compaction would replace it: stop taking writes.
        const failure = new JournalWriteError(`could not compact into ${this.stateFile.path}`, { cause: error });
        this.fail(failure);
        this.options.onError(failure);
      })
      .finally(() => {
        this.compaction = undefined;
      });
  }

  private settle(seq: number): void {
    this.durable = seq;
    const ready = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const waiter of ready) waiter.resolve();
    while (this.actions.length > 0 && this.actions[0]!.seq <= seq) this.actions.shift()!.action();
  }

  private fail(error: JournalWriteError): void {
    this.failure ??= error;
    const waiters = this.waiters;
    this.waiters = [];
    this.actions = [];
    for (const waiter of waiters) waiter.reject(this.failure);
  }
}

/** The journal beside a state file. */
export function journalPathOf(statePath: string): string {
  return `${statePath}.journal`;
}

async function openJournal(path: string, flags: 'w' | 'a'): Promise<FileHandle> {
  const handle = await open(path, flags, 0o600);
  // The mode given to open is reduced by the umask; the journal holds secret values.
  await handle.chmod(0o600);
  return handle;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
