/**
 * Reads one SSE response body: bytes → eventsource-parser → events, with a
 * silence watchdog. Internal.
 *
 * @packageDocumentation
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { TransportError } from './errors.js';
import { sanitizeCause } from './redact.js';
import type { Timers } from './timers.js';

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
  readonly onEvent: (event: EventSourceMessage) => void;
}

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
  const parser = createParser({ onEvent: reading.onEvent });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of reading.body) {
      timers.clearTimeout(timer);
      timer = timers.setTimeout(onSilence, reading.idleTimeoutMs);
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (controller.signal.aborted) break;
    }
  } catch (err) {
    if (idle) throw new TransportError(`stream: silent for ${reading.idleTimeoutMs} ms`, { timedOut: true });
    throw new TransportError('stream: connection failed while reading', { cause: sanitizeCause(err) });
  } finally {
    timers.clearTimeout(timer);
  }
  if (idle) throw new TransportError(`stream: silent for ${reading.idleTimeoutMs} ms`, { timedOut: true });
  throw new TransportError(controller.signal.aborted ? 'stream: closed by the client' : 'stream: closed by the server');
}
