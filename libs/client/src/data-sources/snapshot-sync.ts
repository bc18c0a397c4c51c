/**
 * Fetching snapshots and applying patches, one at a time.
 *
 * @packageDocumentation
 */
import { ClientClosedError, UnexpectedResponseError } from '../errors.js';
import { parseJsonAnswer } from '../http/json-answer.js';
import { performance } from 'node:perf_hooks';
import { ListenerSet } from '../store/listener-set.js';
import type { VaneLogger } from '../util/logger.js';
import type { ServiceHttp } from '../http/service-http.js';
import {
  applyPatch,
  decidePatch,
  parseSnapshot,
  resyncNeeded,
  SnapshotFormatError,
  type Patch,
  type Snapshot,
} from '@vane/client-core';
import type { StateStore } from '../store/state-store.js';
import type { SourceEvents } from './data-source.js';

/** Outcome of a foreground `client.sync()`. */
export interface SyncResult {
  /** `updated` for a 200 (cache replaced), `not-modified` for a 304 (nothing downloaded). */
  readonly status: 'updated' | 'not-modified';
  /** Revision of the cache after the sync. */
  readonly revision: number;
}

/** How one sync or stream patch ended, as {@link SnapshotSync.onOutcome} listeners get it. */
export interface SyncOutcome {
  /** A `GET /v1/sync` (initial, conditional or a resync) or a stream patch applied in place. */
  readonly kind: 'sync' | 'patch';
  /** `200` or `304` for a sync that succeeded; absent for a patch and for a failure. */
  readonly status?: 200 | 304;
  /** Why it failed; absent when it succeeded. */
  readonly error?: unknown;
  /** From the request (or the patch's turn in the queue) to the snapshot applied, in milliseconds. */
  readonly durationMs: number;
}

/** A promise that settles when `p` does, never rejecting (the tail of the serial queue). */
function settled(p: Promise<unknown>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Runs syncs (`GET /v1/sync`) and stream patches against the store, one at a
 * time and in arrival order, so a patch never interleaves with a sync. Every
 * failure is thrown to the caller; deciding what a failure means is the
 * supervisor's job.
 */
export class SnapshotSync {
  #chain: Promise<void> = Promise.resolve();
  #queuedSync: Promise<SyncResult> | undefined;
  readonly #outcomes: ListenerSet<SyncOutcome>;

  /**
   * @param signal - aborted by `close()`; a sync cut by it fails with `ClientClosedError`.
   * @param events - told `synced` after every successful sync (200 or 304); failures are thrown to the caller.
   */
  constructor(
    private readonly http: ServiceHttp,
    private readonly store: StateStore,
    private readonly signal: AbortSignal,
    private readonly logger: VaneLogger,
    private readonly events: SourceEvents,
  ) {
    this.#outcomes = new ListenerSet(logger, (o) => `sync outcome listener threw on a ${o.kind}`);
  }

  /**
   * Subscribes to the end of every sync and every patch applied in place
   * (not those dropped as stale, nor a close cutting one short).
   *
   * @returns a function that unsubscribes.
   */
  onOutcome(listener: (outcome: SyncOutcome) => void): () => void {
    return this.#outcomes.add(listener, 'onOutcome');
  }

  /** The initial, unconditional sync of `create()`. */
  initial(): Promise<SyncResult> {
    return this.#serial(() => this.#syncNow(false));
  }

  /** Queues a conditional sync, or joins one queued and not started yet. */
  sync(): Promise<SyncResult> {
    if (this.#queuedSync) return this.#queuedSync;
    const queued = this.#serial(() => {
      this.#queuedSync = undefined;
      return this.#syncNow(true);
    });
    this.#queuedSync = queued;
    return queued;
  }

  /** A stream `resync` event: syncs, in turn, unless the store already has `revision`. */
  resync(revision: number | undefined): Promise<void> {
    return this.#serial(async () => {
      if (resyncNeeded(this.store.snapshot.revision, revision)) await this.#syncNow(true);
    });
  }

  /** A stream `patch` event: applied in turn when its base matches; a resync otherwise; dropped when stale. */
  patch(patch: Patch): Promise<void> {
    return this.#serial(async () => {
      if (this.signal.aborted) return;
      // Patches apply to what the service sent, not to the validated view readers get.
      const current = this.store.raw;
      const decision = decidePatch(current, patch);
      if (decision === 'stale') return;
      if (decision === 'resync') {
        this.logger.debug?.(`stream: patch base ${patch.base} does not match revision ${current.revision}; resyncing`);
        await this.#syncNow(true);
        return;
      }
      const startedAt = performance.now();
      await this.#observed('patch', startedAt, () =>
        this.store.apply(applyPatch(current, patch), 'patch', { committedAtMs: patch.committedAtMs }),
      );
    });
  }

  /** Resolves when everything queued so far has settled. */
  idle(): Promise<void> {
    return this.#chain;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(task);
    this.#chain = settled(run);
    return run;
  }

  #syncNow(conditional: boolean): Promise<SyncResult> {
    const startedAt = performance.now();
    return this.#observed('sync', startedAt, () => this.#fetchAndApply(conditional));
  }

  /** Runs `task` and tells the outcome listeners how it ended (a close is no outcome). */
  async #observed<T>(kind: SyncOutcome['kind'], startedAt: number, task: () => Promise<T>): Promise<T> {
    try {
      const result = await task();
      if (this.#outcomes.size > 0) {
        const status = (result as Partial<SyncResult> | undefined)?.status;
        this.#outcomes.emit({
          kind,
          ...(status !== undefined && { status: status === 'updated' ? 200 : 304 }),
          durationMs: performance.now() - startedAt,
        });
      }
      return result;
    } catch (error) {
      if (this.#outcomes.size > 0 && !(error instanceof ClientClosedError))
        this.#outcomes.emit({ kind, error, durationMs: performance.now() - startedAt });
      throw error;
    }
  }

  async #fetchAndApply(conditional: boolean): Promise<SyncResult> {
    if (this.signal.aborted) throw new ClientClosedError();
    const headers: Record<string, string> = {};
    const etag = this.store.etag;
    if (conditional && etag !== undefined) headers['if-none-match'] = etag;
    let answer;
    try {
      answer = await this.http.fetch({ method: 'GET', path: 'v1/sync', headers, operation: 'sync' }, this.signal);
    } catch (err) {
      // A sync cut short by close() is reported as such, not as the network failure it looks like.
      if (this.signal.aborted) throw new ClientClosedError('the Vane client was closed during the sync');
      throw err;
    }
    if (answer.status === 304) {
      await this.store.confirm(answer.header('etag'));
      this.events({ type: 'synced' });
      this.logger.debug?.(`sync: 304, revision ${this.store.snapshot.revision} unchanged`);
      return { status: 'not-modified', revision: this.store.snapshot.revision };
    }
    if (answer.status !== 200) throw this.http.errorFor(answer.status, answer.text, answer.header, 'sync');
    const next = readSnapshot(parseJsonAnswer(answer, 'sync'));
    if (!(await this.store.apply(next, 'sync', { etag: answer.header('etag') }))) throw new ClientClosedError();
    this.events({ type: 'synced' });
    this.logger.debug?.(`sync: 200, revision ${next.revision}`);
    return { status: 'updated', revision: next.revision };
  }
}

function readSnapshot(doc: unknown): Snapshot {
  try {
    return parseSnapshot(doc);
  } catch (err) {
    if (err instanceof SnapshotFormatError)
      throw new UnexpectedResponseError(`sync: malformed snapshot (${err.message})`, { status: 200 });
    // A document nested past the engine's stack: refused whole, with a code like any other answer.
    if (err instanceof RangeError)
      throw new UnexpectedResponseError('sync: the snapshot is nested too deep', { status: 200 });
    throw err;
  }
}
