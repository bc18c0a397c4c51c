/**
 * Reads one SSE response body: bytes → the core's SSE parser → events, with a
 * silence watchdog. Internal.
 *
 * @packageDocumentation
 */
import { createSseParser, type SseEvent } from '@vane/client-core';
import { TransportError } from '../errors.js';
import { sanitizeCause } from '../util/redact.js';
import type { Timers } from '../util/timers.js';

/** Settings of {@link readEventStream}. */
export interface EventStreamReading {
  /** The response body. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Aborting it ends the read (the caller aborts the request with it). */
  readonly controller: AbortController;
  /** Silence after which the read fails with a transport error, in milliseconds. */
  readonly idleTimeoutMs: number;
  readonly timers: Timers;
  /** Called for each complete event, in order. */
  readonly onEvent: (event: SseEvent) => void;
  /** Bytes one event (or comment) may take before the read fails. @default {@link MAX_EVENT_BYTES} */
  readonly maxEventBytes?: number;
}

/**
 * The largest event the client reads, in bytes (32 MiB, far above any patch
 * the service sends): a server that never ends a line cannot exhaust memory.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

/**
 * Reads events until the body ends or fails. Always rejects: the stream is
 * meant to last, so its end is a transport error (`closed by the server`,
 * `silent for N ms`, or the network failure), unless the caller aborted it.
 * An event cut by the end of the body is dropped, never delivered half.
 */
export async function readEventStream(reading: EventStreamReading): Promise<never> {
  const { controller, timers } = reading;
  let idle = false;
  let timer = timers.setTimeout(onSilence, reading.idleTimeoutMs);
  function onSilence(): void {
    idle = true;
    controller.abort();
  }
  const maxEventBytes = reading.maxEventBytes ?? MAX_EVENT_BYTES;
  // Bytes received since the last complete event or comment: what the parser may be holding.
  let pending = 0;
  let oversized = false;
  const feed = createSseParser(
    (event) => {
      pending = 0;
      reading.onEvent(event);
    },
    () => {
      pending = 0;
    },
  );
  const decoder = new TextDecoder();
  try {
    for await (const chunk of reading.body) {
      timers.clearTimeout(timer);
      timer = timers.setTimeout(onSilence, reading.idleTimeoutMs);
      pending += chunk.byteLength;
      feed(decoder.decode(chunk, { stream: true }));
      if (pending > maxEventBytes) {
        oversized = true;
        controller.abort();
        break;
      }
      if (controller.signal.aborted) break;
    }
  } catch (err) {
    if (idle) throw new TransportError(`stream: silent for ${reading.idleTimeoutMs} ms`, { timedOut: true });
    throw new TransportError('stream: connection failed while reading', { cause: sanitizeCause(err) });
  } finally {
    timers.clearTimeout(timer);
  }
  if (idle) throw new TransportError(`stream: silent for ${reading.idleTimeoutMs} ms`, { timedOut: true });
  if (oversized) throw new TransportError(`stream: an event grew past ${maxEventBytes} bytes`);
  throw new TransportError(controller.signal.aborted ? 'stream: closed by the client' : 'stream: closed by the server');
}
