/**
 * A Server-Sent Events parser (the WHATWG event-stream format): text in,
 * events out. Pure and linear in its input; no timer, no I/O.
 *
 * @packageDocumentation
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event` field; `message` when the event named none. */
  readonly event: string;
  /** The `data` lines, joined by `\n`. */
  readonly data: string;
  /** The last event id seen on the stream (it carries over, as the format says), if any. */
  readonly id: string | undefined;
}

const END_OF_LINE = /\r\n?|\n/;

/**
 * Creates a parser: feed it decoded text in pieces of any size; it calls
 * `onEvent` for each complete event in order, and `onComment` for each
 * comment line (`: ping`). A piece that ends mid-line is held until its line
 * ends (appended, and split once then: engines concatenate without copying,
 * so one long line sent in many pieces costs linear time).
 * A leading byte-order mark is the decoder's to strip (`TextDecoder` does).
 *
 * @param onEvent - called for each event with a `data` field.
 * @param onComment - called for each comment line.
 * @returns the feed function.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, onComment?: () => void): (text: string) => void {
  let held = '';
  let skipLineFeed = false;
  let type = '';
  let data: string | undefined;
  let id: string | undefined;

  function line(text: string): void {
    if (text === '') {
      if (data !== undefined) onEvent({ event: type || 'message', data, id });
      type = '';
      data = undefined;
      return;
    }
    // `field: value`, `field:value` or a bare `field` (one space after the colon is not the value's);
    // a line starting with a colon (an empty field) is a comment.
    const [, field, value] = /^([^:]*):? ?(.*)$/s.exec(text)!;
    if (field === '') return onComment?.();
    if (field === 'event') type = value;
    else if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  return (text) => {
    // An empty piece (a decoder holding half a character) changes nothing, not even a pending CRLF.
    if (text === '') return;
    // A CR that ended the last piece may be the first half of a CRLF.
    if (skipLineFeed && text[0] === '\n') text = text.slice(1);
    skipLineFeed = text.endsWith('\r');
    held += text;
    // A piece with no line end is only held: the held text is split once, when a line ends.
    if (!/[\r\n]/.test(text)) return;
    const lines = held.split(END_OF_LINE);
    held = lines.pop()!;
    for (const whole of lines) line(whole);
  };
}
