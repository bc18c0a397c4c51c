/**
 * The streaming source: the SSE connection (`GET /v1/stream`) and what its
 * events ask for.
 *
 * @packageDocumentation
 */
import type { DataSource, SourceEvents } from './data-source.js';
import { UnexpectedResponseError } from '../errors.js';
import { MAX_TIMER_MS } from './polling-source.js';
import type { ServiceHttp } from '../http/service-http.js';
import { parsePatch, readStreamEvent, type SseEvent } from '@vane/client-core';
import type { StateStore } from '../store/state-store.js';
import type { SnapshotSync } from './snapshot-sync.js';
import { readEventStream } from './sse-reader.js';
import type { TimerHandle, Timers } from '../util/timers.js';
import type { VaneLogger } from '../util/logger.js';

/** Settings of a {@link StreamingSource}. */
export interface StreamingSettings {
  readonly http: ServiceHttp;
  readonly store: StateStore;
  readonly sync: SnapshotSync;
  readonly timers: Timers;
  readonly logger: VaneLogger;
  readonly events: SourceEvents;
  /** Silence treated as a transport error, in milliseconds. */
  readonly idleTimeoutMs: number;
  /** Bound on reading an error answer's body, in milliseconds. */
  readonly timeoutMs: number;
}

/** One connection attempt; `cancelled` once {@link StreamingSource.stop} or a `goaway` ended it (its end is not reported). */
interface Attempt {
  readonly controller: AbortController;
  cancelled: boolean;
}

/**
 * Opens the stream when told to and reads it until it ends. Every end is
 * reported as a failure; `resync` and `patch` events go to the
 * {@link SnapshotSync} queue, in order.
 */
export class StreamingSource implements DataSource {
  #timer: TimerHandle | undefined;
  readonly #attempts = new Map<Attempt, Promise<void>>();

  /** @param s - what the source reads from and reports to. */
  constructor(private readonly s: StreamingSettings) {}

  /** Opens the stream after `delayMs`; at once for 0. */
  schedule(delayMs: number): void {
    this.#clear();
    if (delayMs <= 0) return this.#start();
    this.#timer = this.s.timers.setTimeout(
      () => {
        this.#timer = undefined;
        this.#start();
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
  }

  async stop(): Promise<void> {
    this.#clear();
    for (const attempt of this.#attempts.keys()) {
      attempt.cancelled = true;
      attempt.controller.abort();
    }
    await Promise.all(this.#attempts.values());
  }

  #clear(): void {
    if (this.#timer !== undefined) this.s.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #start(): void {
    const attempt: Attempt = { controller: new AbortController(), cancelled: false };
    const run = this.#connect(attempt).then(
      () => undefined,
      (err: unknown) => {
        if (!attempt.cancelled) this.s.events({ type: 'failed', kind: 'stream', error: err, reason: 'stream' });
      },
    );
    this.#attempts.set(
      attempt,
      run.finally(() => this.#attempts.delete(attempt)),
    );
  }

  async #connect(attempt: Attempt): Promise<never> {
    const { http, timers } = this.s;
    const controller = attempt.controller;
    try {
      const res = await http.open(
        {
          method: 'GET',
          path: 'v1/stream',
          headers: {
            accept: 'text/event-stream',
            'cache-control': 'no-cache',
            'last-event-id': String(this.s.store.snapshot.revision),
          },
          operation: 'stream',
        },
        controller.signal,
      );
      if (res.status !== 200) {
        const timer = timers.setTimeout(() => controller.abort(), this.s.timeoutMs);
        const text = await res.text().catch(() => '');
        timers.clearTimeout(timer);
        throw http.errorFor(res.status, text, (n) => res.header(n), 'stream');
      }
      const type = res.header('content-type') ?? '';
      if (!type.toLowerCase().startsWith('text/event-stream'))
        throw new UnexpectedResponseError(`stream: expected text/event-stream, got "${type.slice(0, 60)}"`, {
          status: res.status,
        });
      this.s.events({ type: 'stream-opened' });
      return await readEventStream({
        body: res.body,
        controller,
        idleTimeoutMs: this.s.idleTimeoutMs,
        timers,
        onEvent: (event) => {
          if (!attempt.cancelled) this.#onEvent(event, attempt);
        },
      });
    } finally {
      controller.abort();
    }
  }

  #onEvent(event: SseEvent, attempt: Attempt): void {
    const { sync, events } = this.s;
    const instruction = readStreamEvent(event, parsePatch);
    switch (instruction.type) {
      case 'goaway':
        // An instruction, not a transport error: this stream's end is not reported as a failure.
        attempt.cancelled = true;
        attempt.controller.abort();
        events({ type: 'goaway', delayMs: instruction.delayMs });
        return;
      case 'resync':
        // Decided in turn, after the patches received before it (a replay ends with a resync).
        sync
          .resync(instruction.revision)
          .catch((error: unknown) => events({ type: 'failed', kind: 'sync', error, reason: 'stream resync' }));
        return;
      case 'malformed':
        this.s.logger.warn(`stream: malformed patch event (${instruction.problem}); resyncing`);
        events({ type: 'sync-requested', reason: 'malformed patch' });
        return;
      case 'patch':
        sync
          .patch(instruction.patch)
          .catch((error: unknown) => events({ type: 'failed', kind: 'sync', error, reason: 'stream patch' }));
        return;
      case 'ignore':
        // Other event names are ignored (forward compatibility).
        return;
    }
  }
}
