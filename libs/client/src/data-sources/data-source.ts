/**
 * The seam between the data sources (polling, streaming) and the supervisor
 * that decides which of them runs when.
 *
 * @packageDocumentation
 */

/**
 * A way of keeping the snapshot current. A source makes one attempt at a
 * time when told to, reports how it went through {@link SourceEvents}, and
 * never decides on its own when to try again.
 */
export interface DataSource {
  /** Makes the next attempt after `delayMs` (replacing a pending one). */
  schedule(delayMs: number): void;
  /** Cancels a pending attempt and ends a running one; resolves once nothing of it is left. */
  stop(): Promise<void>;
}

/** What failed: the stream connection, or a sync (a poll, or one the stream asked for). */
export type FailureKind = 'stream' | 'sync';

/** What the sources tell the supervisor. Implementations never throw. */
export interface SourceEvents {
  /** The stream is open (status 200, `text/event-stream`). */
  streamOpened(): void;
  /**
   * An attempt failed. For the stream, every end is a failure (a stream is
   * meant to last); the supervisor decides what follows.
   *
   * @param reason - what the attempt was, for the log (`ttl`, `stream resync`…).
   */
  failed(kind: FailureKind, error: unknown, reason: string): void;
  /** A sync should run now, in the background (e.g. after a malformed stream event). */
  syncInBackground(reason: string): void;
}
