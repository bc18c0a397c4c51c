import type { StreamHub } from '../domain/stream-hub.js';

/** The longest `reconnect_in_ms` PROTOCOL §6 allows. */
const GOAWAY_MAX_DELAY_MS = 60_000;
import type { VaneServerLogger } from '../observability/logger.js';
import type { Readiness } from '../observability/readiness.js';
import type { ServerMetrics } from './server-metrics.js';

/** What a drain acts on. */
export interface StreamDrainParts {
  readonly hub: StreamHub;
  readonly readiness: Readiness;
  readonly metrics: ServerMetrics;
  readonly logger: VaneServerLogger;
  /** Uniform in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * The first half of a graceful stop (PROTOCOL §6): `/readyz` turns false so
 * the load balancer sends no more, every open stream is sent `goaway` with
 * a delay spread uniformly over the first half of `windowMs` (no thundering
 * herd on the other replicas; the second half leaves time for reconnects
 * that land here again to be answered, not refused), and a stream opened meanwhile is sent `goaway` at once, told
 * to come back once this replica is surely gone (after `windowMs` and
 * `timeoutMs`, its exit bound), spread over another window: with no other
 * replica (a restart in place), the clients then meet its successor, not a
 * closed port. Resolves when the window has passed; the caller then stops
 * listening and finishes in-flight writes within `timeoutMs`.
 */
export async function drainStreams(parts: StreamDrainParts, windowMs: number, timeoutMs: number): Promise<void> {
  const random = parts.random ?? Math.random;
  const exitBound = Date.now() + windowMs + timeoutMs;
  parts.readiness.startDraining();
  const streams = parts.hub.stats().streams;
  parts.logger.info(`draining: ${streams} stream(s) asked to reconnect within ${windowMs} ms`, {
    event: 'drain_started',
    streams,
    window_ms: windowMs,
  });
  parts.hub.drain(() => {
    parts.metrics.goaway('drain', 1);
    return Math.min(GOAWAY_MAX_DELAY_MS, Math.max(0, exitBound - Date.now()) + random() * windowMs);
  });
  const sent = parts.hub.goaway(Number.POSITIVE_INFINITY, () => (random() * windowMs) / 2);
  parts.metrics.goaway('drain', sent);
  await new Promise<void>((resolve) => setTimeout(resolve, windowMs));
}
