import fc from 'fast-check';
import { createSseParser, type SseEvent } from './sse-parser.js';

function parse(pieces: readonly string[]): { events: SseEvent[]; comments: number } {
  const events: SseEvent[] = [];
  let comments = 0;
  const feed = createSseParser(
    (event) => events.push(event),
    () => comments++,
  );
  for (const piece of pieces) feed(piece);
  return { events, comments };
}

describe('createSseParser', () => {
  it('reads events, their names, multi-line data and ids; comments apart', () => {
    const { events, comments } = parse([
      ': ping\n\nevent: resync\nid: 42\ndata: {"revision": 42}\n\n',
      'data: a\ndata:b\n\nevent: patch\ndata\n\n',
    ]);
    expect(comments).toBe(1);
    expect(events).toEqual([
      { event: 'resync', data: '{"revision": 42}', id: '42' },
      { event: 'message', data: 'a\nb', id: '42' },
      { event: 'patch', data: '', id: '42' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, a CRLF split across pieces included', () => {
    expect(parse(['data: x\r', '\n\r', '\ndata: y\r\rdata: z\n\n']).events.map((e) => e.data)).toEqual(['x', 'y', 'z']);
  });

  it('holds a CR across pieces without a line end, and across empty pieces (a decoder holding half a character)', () => {
    expect(parse(['data: x\r', 'data: y', '\ndata: z\n\n']).events.map((e) => e.data)).toEqual(['x\ny\nz']);
    expect(parse(['data: a\r', '', '\ndata: b\r', '', '\n\r\n']).events.map((e) => e.data)).toEqual(['a\nb']);
  });

  it('dispatches nothing for an event without data, nor for one cut by the end of the text', () => {
    expect(parse(['event: goaway\n\n', 'data: half']).events).toEqual([]);
  });

  it('ignores an id holding NUL and unknown fields', () => {
    expect(parse(['id: 1\n\nid: a\0b\nretry: 5\nfoo: bar\ndata: d\n\n']).events).toEqual([
      { event: 'message', data: 'd', id: '1' },
    ]);
  });

  it('gives the same events however the text is cut', () => {
    const stream = 'event: patch\r\ndata: {"base":1}\r\n\r\n: ping\n\nevent: resync\rdata: {"revision":2}\r\r';
    const whole = parse([stream]);
    fc.assert(
      fc.property(fc.array(fc.nat(stream.length), { maxLength: 8 }), (cuts) => {
        const at = [...new Set(cuts)].sort((a, b) => a - b);
        const pieces = [0, ...at].map((from, i) => stream.slice(from, at[i] ?? stream.length));
        expect(parse(pieces)).toEqual(whole);
      }),
    );
  });
});
