/**
 * Reading the stream's body: bytes decoded, SSE parsed, each event handed on,
 * with a watchdog for a connection that went silent.
 *
 * @packageDocumentation
 */
import { createSseParser, type SseEvent } from '@vane/client-core';
import { VaneServiceError } from './errors.js';

/**
 * Feeds `body`'s events to `onEvent` until it ends, `controller` aborts, or
 * nothing arrives for `idleTimeoutMs`; then aborts `controller` (reason
 * `ended`) if nothing else did. Always fails (`VANE_TRANSPORT`): the caller
 * reconnects.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  controller: AbortController,
  idleTimeoutMs: number,
  onEvent: (event: SseEvent) => void,
): Promise<never> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let idle = false;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const feed = createSseParser((event) => controller.signal.aborted || onEvent(event));
  try {
    for (;;) {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        idle = true;
        void reader.cancel();
      }, idleTimeoutMs);
      const { done, value } = await reader.read();
      if (done || controller.signal.aborted) break;
      feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    clearTimeout(watchdog);
    controller.abort('ended');
  }
  throw new VaneServiceError('VANE_TRANSPORT', idle ? 'stream: idle' : 'stream: closed');
}
