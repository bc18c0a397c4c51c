/**
 * Reading the body of `GET /v1/stream` with `fetch`'s streaming body: text
 * decoded, events parsed, and silence bounded.
 *
 * @packageDocumentation
 */
import { createSseParser, type SseEvent } from '@vane/client-core';
import { VaneServiceError } from './errors.js';

/**
 * Feeds each event of `body` to `onEvent` until the stream ends, `controller`
 * aborts, or nothing arrives for `idleMs`; then aborts `controller` (reason
 * `ended`) if nothing else did.
 *
 * @throws VaneServiceError - `VANE_TRANSPORT` always: an ended stream is a failure the caller reconnects from.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  controller: AbortController,
  idleMs: number,
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
      }, idleMs);
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
