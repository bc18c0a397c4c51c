import type { SseEvent } from '@vane/client-core';
import { ManualTimers } from '../../test/helpers/manual-timers.js';
import { TransportError } from '../errors.js';
import { readEventStream } from './sse-reader.js';

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

function read(body: AsyncIterable<Uint8Array>, maxEventBytes?: number) {
  const events: SseEvent[] = [];
  const controller = new AbortController();
  const done = readEventStream({
    body,
    controller,
    idleTimeoutMs: 45_000,
    timers: new ManualTimers(0),
    onEvent: (e) => events.push(e),
    ...(maxEventBytes !== undefined && { maxEventBytes }),
  });
  return { events, controller, done };
}

describe('readEventStream', () => {
  it('delivers whole events in order and reports the server closing the stream', async () => {
    const { events, done } = read(
      chunks('id: 1\nevent: resync\ndata: {"revision":1}\n\n: ping\n\nid: 2\nevent: pa', 'tch\ndata: {}\n\n'),
    );
    await expect(done).rejects.toThrow('stream: closed by the server');
    expect(events.map((e) => [e.id, e.event])).toEqual([
      ['1', 'resync'],
      ['2', 'patch'],
    ]);
  });

  it('drops an event cut by the end of the body rather than deliver half', async () => {
    const { events, done } = read(chunks('event: patch\ndata: {"base":1'));
    await expect(done).rejects.toBeInstanceOf(TransportError);
    expect(events).toEqual([]);
  });

  it('fails with a transport error, and aborts the request, when one event grows past the bound', async () => {
    const endless = (async function* () {
      for (let i = 0; i < 100; i++) yield new TextEncoder().encode('data: ' + 'x'.repeat(1000));
    })();
    const { events, controller, done } = read(endless, 10_000);
    await expect(done).rejects.toThrow('stream: an event grew past 10000 bytes');
    expect(controller.signal.aborted).toBe(true);
    expect(events).toEqual([]);
  });

  it('counts each event on its own: many events, and pings, add up to nothing', async () => {
    const parts = Array.from(
      { length: 50 },
      (_, i) => `id: ${i}\nevent: patch\ndata: ${'y'.repeat(500)}\n\n: ping\n\n`,
    );
    const { events, done } = read(chunks(...parts), 2_000);
    await expect(done).rejects.toThrow('stream: closed by the server');
    expect(events).toHaveLength(50);
  });
});
