import type { Audience } from './snapshot-renderer.js';
import type { StreamSink } from './stream-sink.js';

/** Settings of the SSE fan-out. */
export interface StreamHubOptions {
  /** Interval of the `: ping` keep-alive comment, in ms. */
  pingIntervalMs: number;
  /** Patches kept per service for `Last-Event-ID` replay. */
  historySize: number;
  /**
   * Bytes of patches kept per service for replay (the encoded events of both
   * audiences); the oldest go first, so one large value rewritten many times
   * costs bounded memory. A single patch larger than this is kept by no one.
   */
  historyBytes: number;
  /**
   * Bytes a connection may have queued before it is dropped as a slow consumer;
   * its memory stays under this plus one event.
   */
  bufferBytes: number;
  /** Called whenever a stream opens or closes (the console shows the counts live). */
  onStreamsChanged?: () => void;
  /** Current time in ms, for when each stream opened. @default Date.now */
  now?: () => number;
}

/** One revision's `patch` event, rendered and encoded once for each audience. */
export interface PublishedPatch {
  readonly base: number;
  readonly revision: number;
  /** Encoded once, written to every stream of that audience as is. */
  readonly frames: Readonly<Record<Audience, Buffer>>;
}

/** One open `/v1/stream` connection. */
export interface StreamConnection {
  readonly slug: string;
  readonly audience: Audience;
  /** The static key it authenticated with. */
  readonly key: string;
  /** Where its bytes go. */
  readonly sink: StreamSink;
  /** A client ahead of this replica: patches up to this revision are not sent (it has them). */
  aheadAt?: number;
}

/** Counters for tests and benchmarks. */
export interface StreamStats {
  /** Connections open now. */
  streams: number;
  /** Connections dropped because they did not read fast enough. */
  droppedSlowConsumers: number;
  /** Bytes of patches kept for `Last-Event-ID` replay, every service together. */
  historyBytes: number;
}

/** The replay history of one service, oldest patch first. */
interface History {
  readonly patches: PublishedPatch[];
  /** The bytes of every frame of `patches`. */
  bytes: number;
}

/** What a patch costs the history: its frames for every audience. */
function patchBytes(patch: PublishedPatch): number {
  return patch.frames.secret.length + patch.frames.public.length;
}

/** Formats one SSE event. `data` must be a single line (JSON.stringify guarantees it). */
export function sseFrame(event: string, id: number, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

const PING_FRAME = Buffer.from(': ping\n\n');

/** The `goaway` event (PROTOCOL §6): no `id`, so a client keeps its `Last-Event-ID`. */
export function goawayFrame(reconnectInMs: number): Buffer {
  return Buffer.from(`event: goaway\ndata: ${JSON.stringify({ reconnect_in_ms: Math.round(reconnectInMs) })}\n\n`);
}

/**
 * Fans patches out to every open stream of a service, keeps a bounded history
 * for `Last-Event-ID` replay, sends keep-alives, and drops connections that
 * stop reading, so a slow consumer costs a bounded amount of memory.
 */
export class StreamHub {
  private readonly bySlug = new Map<string, Set<StreamConnection>>();
  /** When each open stream opened, in ms. */
  private readonly openedAt = new Map<StreamConnection, number>();
  private readonly history = new Map<string, History>();
  private historyTotal = 0;
  /** The last revision sent per service. */
  private readonly revisions = new Map<string, number>();
  private pingTimer: NodeJS.Timeout | undefined;
  private count = 0;
  private dropped = 0;
  private closed = false;
  /** While draining: the delay each new stream is told to reconnect after, at once. */
  private drainDelay: (() => number) | undefined;

  constructor(private readonly options: StreamHubOptions) {}

  /**
   * Starts the event stream on the connection's sink with a `resync` first (PROTOCOL §6). When
   * the history still holds every patch after `lastEventId` and they fit the
   * slow-consumer bound, the `resync` names `lastEventId` (the client is
   * there and need not sync) and the patches follow; otherwise it names the
   * current revision and the client syncs.
   */
  open(connection: StreamConnection, currentRevision: number, lastEventId: number | undefined, holdAheadMs = 0): void {
    const { sink } = connection;
    if (this.closed) {
      sink.refuse();
      return;
    }
    sink.start();
    if (this.drainDelay) {
      // Not a refusal: a 503 would count toward the client's polling fallback; goaway does not.
      sink.end(goawayFrame(this.drainDelay()));
      return;
    }
    let set = this.bySlug.get(connection.slug);
    if (!set) this.bySlug.set(connection.slug, (set = new Set()));
    set.add(connection);
    this.openedAt.set(connection, (this.options.now ?? Date.now)());
    this.count++;
    this.options.onStreamsChanged?.();
    sink.onClose(() => this.remove(connection));
    this.startPings();

    if (lastEventId !== undefined && lastEventId > currentRevision && holdAheadMs > 0) {
      this.holdAhead(connection, lastEventId, holdAheadMs);
      return;
    }
    const replay =
      lastEventId !== undefined && lastEventId !== currentRevision
        ? this.replayable(connection.slug, lastEventId, currentRevision)?.map((p) => p.frames[connection.audience])
        : undefined;
    // A replay larger than a slow consumer may hold would be that much memory per stalled reconnect: sync instead.
    const fits =
      replay !== undefined && replay.reduce((sum, frame) => sum + frame.length, 0) <= this.options.bufferBytes;
    const from = fits ? lastEventId! : currentRevision;
    this.write(connection, Buffer.from(sseFrame('resync', from, JSON.stringify({ revision: from }))));
    if (fits) for (const frame of replay) this.write(connection, frame);
  }

  /** The last revision published for `slug`, or the one given to {@link setRevision}; undefined for neither. */
  revision(slug: string): number | undefined {
    return this.revisions.get(slug);
  }

  /** Tells the hub a service's revision without a patch (at start, when the data is loaded). */
  setRevision(slug: string, revision: number): void {
    this.revisions.set(slug, revision);
  }

  /**
   * The service's state was replaced without patches (a reload from the
   * store): its history is dropped, so no reconnect replays patches of what
   * was replaced, and every open stream is sent `resync` at `revision`.
   */
  resync(slug: string, revision: number): void {
    this.revisions.set(slug, revision);
    const history = this.history.get(slug);
    if (history) {
      this.historyTotal -= history.bytes;
      this.history.delete(slug);
    }
    const frame = Buffer.from(sseFrame('resync', revision, JSON.stringify({ revision })));
    for (const connection of this.bySlug.get(slug) ?? []) {
      connection.aheadAt = undefined;
      this.write(connection, frame);
    }
  }

  /** Records a revision's patch and sends it to every open stream of the service; returns how many. */
  publish(slug: string, patch: PublishedPatch): number {
    this.revisions.set(slug, patch.revision);
    let history = this.history.get(slug);
    if (!history) this.history.set(slug, (history = { patches: [], bytes: 0 }));
    history.patches.push(patch);
    history.bytes += patchBytes(patch);
    this.historyTotal += patchBytes(patch);
    // Oldest first; a client whose Last-Event-ID went with them resyncs.
    const { historySize, historyBytes } = this.options;
    while (history.patches.length > historySize || (history.bytes > historyBytes && history.patches.length > 0)) {
      const dropped = patchBytes(history.patches.shift()!);
      history.bytes -= dropped;
      this.historyTotal -= dropped;
    }
    const set = this.bySlug.get(slug);
    if (!set) return 0;
    for (const connection of set) {
      if (connection.aheadAt !== undefined) {
        if (patch.revision <= connection.aheadAt) continue;
        const continues = patch.base === connection.aheadAt;
        connection.aheadAt = undefined;
        if (!continues) {
          this.write(
            connection,
            Buffer.from(sseFrame('resync', patch.revision, JSON.stringify({ revision: patch.revision }))),
          );
          continue;
        }
      }
      this.write(connection, patch.frames[connection.audience]);
    }
    return set.size;
  }

  /**
   * A client that saw a revision on another replica, which this one has not
   * applied yet: it is told it is up to date, and gets the patches after its
   * revision once this replica has them, never an older revision. If this
   * replica has not reached it within `holdMs`, the client is from somewhere
   * else (another database): it is sent `resync` at this replica's revision.
   */
  private holdAhead(connection: StreamConnection, lastEventId: number, holdMs: number): void {
    connection.aheadAt = lastEventId;
    this.write(connection, Buffer.from(sseFrame('resync', lastEventId, JSON.stringify({ revision: lastEventId }))));
    const timer = setTimeout(() => {
      if (connection.aheadAt === undefined) return;
      connection.aheadAt = undefined;
      const revision = this.revisions.get(connection.slug) ?? 0;
      this.write(connection, Buffer.from(sseFrame('resync', revision, JSON.stringify({ revision }))));
    }, holdMs);
    timer.unref();
    connection.sink.onClose(() => clearTimeout(timer));
  }

  /**
   * Sends `goaway` to at most `limit` open streams, the longest open first
   * whatever their service, and ends them; each is told its own delay. With
   * `openedBefore` (ms), streams opened at or after it are left alone.
   * Returns how many were sent.
   */
  goaway(limit: number, delayMs: () => number, openedBefore = Number.POSITIVE_INFINITY): number {
    // Map order is opening order: the first entries are the oldest.
    let sent = 0;
    for (const [connection, openedAt] of this.openedAt) {
      if (sent >= limit || openedAt >= openedBefore) break;
      if (connection.sink.ended) continue;
      connection.sink.end(goawayFrame(delayMs()));
      sent++;
    }
    return sent;
  }

  /** How many open streams opened before `openedBefore` (ms): those {@link goaway} may end. */
  streamsOpenedBefore(openedBefore: number): number {
    let count = 0;
    for (const [connection, openedAt] of this.openedAt) {
      if (openedAt >= openedBefore) break;
      if (!connection.sink.ended) count++;
    }
    return count;
  }

  /** From now on, every new stream is sent `goaway` (with `delayMs()`) at once and ended. */
  drain(delayMs: () => number): void {
    this.drainDelay = delayMs;
  }

  /** Open streams per service. */
  streamsByService(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [slug, set] of this.bySlug) counts.set(slug, set.size);
    return counts;
  }

  /** Ends every stream for which `predicate` holds (the client reconnects and meets the new rules). */
  endWhere(predicate: (connection: StreamConnection) => boolean): void {
    for (const set of this.bySlug.values()) {
      for (const connection of set) if (predicate(connection)) connection.sink.end();
    }
  }

  /** Ends every stream and stops the keep-alives. */
  close(): void {
    this.closed = true;
    this.endWhere(() => true);
    this.stopPings();
  }

  /** Streams open now for one service. */
  streamsOf(slug: string): number {
    return this.bySlug.get(slug)?.size ?? 0;
  }

  /** Current counters. */
  stats(): StreamStats {
    return { streams: this.count, droppedSlowConsumers: this.dropped, historyBytes: this.historyTotal };
  }

  private replayable(slug: string, lastEventId: number, currentRevision: number): PublishedPatch[] | undefined {
    const history = this.history.get(slug)?.patches;
    if (!history || lastEventId > currentRevision) return undefined;
    const start = history.findIndex((p) => p.base === lastEventId);
    if (start === -1) return undefined;
    const replay = history.slice(start);
    return replay[replay.length - 1]?.revision === currentRevision ? replay : undefined;
  }

  private write(connection: StreamConnection, chunk: Buffer): void {
    const { sink } = connection;
    if (sink.closed) return;
    // Judge the backlog before adding to it: one large patch alone never drops a reader that keeps up.
    if (sink.queuedBytes > this.options.bufferBytes) {
      this.dropped++;
      sink.destroy();
      return;
    }
    sink.write(chunk);
  }

  private remove(connection: StreamConnection): void {
    const set = this.bySlug.get(connection.slug);
    this.openedAt.delete(connection);
    if (set?.delete(connection)) {
      this.count--;
      this.options.onStreamsChanged?.();
    }
    if (this.count === 0) this.stopPings();
  }

  private startPings(): void {
    if (this.pingTimer) return;
    this.pingTimer = setInterval(() => {
      for (const set of this.bySlug.values()) for (const connection of set) this.write(connection, PING_FRAME);
    }, this.options.pingIntervalMs);
  }

  private stopPings(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }
}
