/**
 * The seam between the data sources (polling, streaming, the snapshot sync
 * they share) and the supervisor that decides which of them runs when: one
 * channel of typed events.
 *
 * @packageDocumentation
 */

/**
 * A way of keeping the snapshot current. A source makes one attempt at a
 * time when told to, reports how it went as a {@link SourceEvent}, and
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

/**
 * Everything the sources, the snapshot sync and the client's foreground
 * calls tell the supervisor, which handles each in one place.
 *
 * - `stream-opened`: the stream is open (status 200, `text/event-stream`).
 * - `goaway`: the server is draining or rebalancing and closed the stream,
 *   asking for a new one after `delayMs`; no failure, no backoff.
 * - `failed`: a background attempt failed. For the stream, every end is a
 *   failure (a stream is meant to last). `reason` says what the attempt was,
 *   for the log (`ttl`, `stream resync`…).
 * - `sync-requested`: a sync should run now, in the background (e.g. after a
 *   malformed stream event).
 * - `synced`: a sync succeeded (200 or 304), in the background or not.
 * - `foreground-failed`: a call the app made (`client.sync()`, a retry while
 *   stale) failed; only a 402 changes what runs in the background.
 */
export type SourceEvent =
  | { readonly type: 'stream-opened' }
  /** The server asked the stream to reconnect after `delayMs` (PROTOCOL §6 `goaway`): not a failure. */
  | { readonly type: 'goaway'; readonly delayMs: number }
  | { readonly type: 'failed'; readonly kind: FailureKind; readonly error: unknown; readonly reason: string }
  | { readonly type: 'sync-requested'; readonly reason: string }
  | { readonly type: 'synced' }
  | { readonly type: 'foreground-failed'; readonly error: unknown };

/** The channel: where a source reports. Implementations never throw. */
export type SourceEvents = (event: SourceEvent) => void;
