import type { StreamHub } from '../domain/stream-hub.js';
import type { LocalServerLogger } from '../logger.js';
import type { Readiness } from './readiness.js';
import type { ServerMetrics } from './server-metrics.js';

/** What a drain acts on. */
export interface StreamDrainParts {
  readonly hub: StreamHub;
  readonly readiness: Readiness;
  readonly metrics: ServerMetrics;
  readonly logger: LocalServerLogger;
  /** Uniform in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * The first half of a graceful stop (PROTOCOL §6): `/readyz` turns false so
 * the load balancer sends no more, every open stream is sent `goaway` with
 * a delay spread uniformly over `windowMs` (no thundering herd on the other
 * replicas), and a stream opened meanwhile is sent `goaway` at once, told
 * to come back after this replica is gone. Resolves when the window has
 * passed; the caller then stops listening and finishes in-flight writes.
 */
export async function drainStreams(parts: StreamDrainParts, windowMs: number): Promise<void> {
  const random = parts.random ?? Math.random;
  const deadline = Date.now() + windowMs;
  parts.readiness.startDraining();
  const streams = parts.hub.stats().streams;
  parts.logger.info(`draining: ${streams} stream(s) asked to reconnect within ${windowMs} ms`, {
    event: 'drain_started',
    streams,
    window_ms: windowMs,
  });
  parts.hub.drain(() => {
    const remaining = Math.max(0, deadline - Date.now());
    parts.metrics.goaway('drain', 1);
    return remaining + random() * windowMs;
  });
  const sent = parts.hub.goaway(Number.POSITIVE_INFINITY, () => random() * windowMs);
  parts.metrics.goaway('drain', sent);
  await new Promise<void>((resolve) => setTimeout(resolve, windowMs));
}
