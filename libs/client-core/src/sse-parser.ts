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

const END_OF_LINE = /\r\n?|\n/g;

/**
 * Creates a parser: feed it decoded text in pieces of any size; it calls
 * `onEvent` for each complete event in order, and `onComment` for each
 * comment line (`: ping`). A piece that ends mid-line is held until its line
 * ends (in a list, so one long line sent in many pieces costs linear time).
 * A leading byte-order mark is the decoder's to strip (`TextDecoder` does).
 *
 * @param onEvent - called for each event with a `data` field.
 * @param onComment - called for each comment line.
 * @returns the feed function.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, onComment?: () => void): (text: string) => void {
  let held: string[] = [];
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
    if (text[0] === ':') return onComment?.();
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  return (text) => {
    // A CR that ended the last piece may be the first half of a CRLF.
    if (skipLineFeed && text[0] === '\n') text = text.slice(1);
    skipLineFeed = false;
    const eol = new RegExp(END_OF_LINE);
    let start = 0;
    let match: RegExpExecArray | null;
    while ((match = eol.exec(text)) !== null) {
      let whole = text.slice(start, match.index);
      if (held.length > 0) {
        whole = held.join('') + whole;
        held = [];
      }
      start = eol.lastIndex;
      if (match[0] === '\r' && start === text.length) skipLineFeed = true;
      line(whole);
    }
    if (start < text.length) held.push(text.slice(start));
  };
}
