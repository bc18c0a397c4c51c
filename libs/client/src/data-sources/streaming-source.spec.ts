import { errorBody, StreamBody, type FakeResponse } from '../../test/helpers/fake-transport.js';
import { flush } from '../../test/helpers/manual-timers.js';
import { SourceParts, syncAnswer } from '../../test/helpers/source-parts.js';
import { UnauthorizedError, UnexpectedResponseError } from '../errors.js';
import type { TransportRequest } from '../http/transport.js';
import { StreamingSource } from './streaming-source.js';

/** A service whose `/v1/sync` serves `state.revision` and whose streams the test writes to. */
async function streaming(streamAnswer?: (req: TransportRequest) => FakeResponse | undefined) {
  const state = { revision: 3 };
  const streams: StreamBody[] = [];
  const parts = new SourceParts((req) => {
    if (new URL(req.url).pathname === '/v1/stream') {
      const answer = streamAnswer?.(req);
      if (answer !== undefined) return answer;
      const body = new StreamBody();
      streams.push(body);
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body };
    }
    return syncAnswer(state.revision);
  });
  await parts.sync.initial();
  parts.events.length = 0;
  const source = new StreamingSource({
    http: parts.http,
    store: parts.store,
    sync: parts.sync,
    timers: parts.timers,
    logger: parts.logger,
    events: parts.report,
    idleTimeoutMs: 45_000,
    timeoutMs: 1_000,
  });
  return { parts, source, state, streams, latest: () => streams.at(-1)! };
}

const sse = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

describe('StreamingSource', () => {
  let s: Awaited<ReturnType<typeof streaming>>;
  afterEach(async () => {
    await s.source.stop();
    await s.parts.close();
  });

  it('opens /v1/stream from the served revision and reports stream-opened', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    const [req] = s.parts.transport.to('/v1/stream');
    expect(req!.headers).toMatchObject({ accept: 'text/event-stream', 'last-event-id': '3' });
    expect(s.parts.eventNames()).toEqual(['stream-opened']);
  });

  it('waits for the scheduled delay on the timers it was given', async () => {
    s = await streaming();
    s.source.schedule(2_000);
    await s.parts.timers.advance(1_999);
    expect(s.parts.transport.to('/v1/stream')).toHaveLength(0);
    await s.parts.timers.advance(1);
    expect(s.parts.transport.to('/v1/stream')).toHaveLength(1);
  });

  it('applies patch events through the snapshot sync, in order; a resync event syncs when the revision differs', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    s.latest().push(sse('patch', { base: 3, revision: 4, configs: { 'db.pool.max': 40 }, flags: {}, secrets: {} }));
    s.latest().push(sse('patch', { base: 4, revision: 5, configs: { 'db.pool.max': 50 }, flags: {}, secrets: {} }));
    await flush();
    expect(s.parts.store.snapshot.revision).toBe(5);
    expect(s.parts.store.snapshot.configs.get('db.pool.max')).toBe(50);
    s.latest().push(sse('resync', { revision: 5 }));
    await flush();
    expect(s.parts.transport.to('/v1/sync')).toHaveLength(1);
    s.state.revision = 8;
    s.latest().push(sse('resync', { revision: 8 }));
    s.latest().push(sse('something-new', {})); // unknown events are ignored
    await flush();
    expect(s.parts.store.snapshot.revision).toBe(8);
    expect(s.parts.eventNames()).toEqual(['stream-opened', 'synced']);
  });

  it('a malformed patch is logged (never its content) and asks for a background sync', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    s.latest().push(sse('patch', '{"base": 3, "revision": "rk_live_SECRET"'));
    s.latest().push(sse('patch', { base: 'x' }));
    await flush();
    expect(s.parts.eventNames()).toEqual(['stream-opened', 'sync-requested', 'sync-requested']);
    expect(s.parts.logger.text('warn')).toContain('stream: malformed patch event (not valid JSON); resyncing');
    expect(s.parts.logger.text()).not.toContain('rk_live_SECRET');
  });

  it('goaway ends the stream and reports the delay asked for, clamped to 0-60000; the end is no failure', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    const first = s.latest();
    first.push(sse('goaway', { reconnect_in_ms: 2500 }));
    first.push(sse('patch', { base: 3, revision: 4, configs: { a: 1 }, flags: {}, secrets: {} })); // after goaway: ignored
    first.end();
    await flush();
    expect(s.parts.events).toEqual([{ type: 'stream-opened' }, { type: 'goaway', delayMs: 2500 }]);
    expect(s.parts.store.snapshot.revision).toBe(3);
    for (const [data, delayMs] of [
      [{ reconnect_in_ms: 600_000 }, 60_000],
      [{ reconnect_in_ms: -5 }, 0],
      [{}, 1000],
      ['not json', 1000],
    ] as const) {
      s.parts.events.length = 0;
      s.source.schedule(0);
      await flush();
      s.latest().push(sse('goaway', data));
      await flush();
      expect(s.parts.events).toEqual([{ type: 'stream-opened' }, { type: 'goaway', delayMs }]);
    }
  });

  it('every end of the stream is reported as a stream failure', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    s.latest().end();
    await flush();
    expect(s.parts.eventNames()).toEqual(['stream-opened', 'failed:stream:stream']);
  });

  it('an error status or a wrong content type is a stream failure with its typed error', async () => {
    let answer: FakeResponse = errorBody(401, 'unauthorized');
    s = await streaming(() => answer);
    s.source.schedule(0);
    await flush();
    answer = { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>' };
    s.source.schedule(0);
    await flush();
    const failures = s.parts.events.flatMap((e) => (e.type === 'failed' ? [e.error] : []));
    expect(failures[0]).toBeInstanceOf(UnauthorizedError);
    expect(failures[1]).toBeInstanceOf(UnexpectedResponseError);
    expect((failures[1] as Error).message).toContain('expected text/event-stream, got "text/html"');
  });

  it('silence past idleTimeoutMs ends the stream as a failure', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    await s.parts.timers.advance(44_999);
    expect(s.parts.eventNames()).toEqual(['stream-opened']);
    await s.parts.timers.advance(1);
    await flush();
    expect(s.parts.eventNames()).toEqual(['stream-opened', 'failed:stream:stream']);
    expect(s.parts.events.at(-1)).toMatchObject({ error: { message: expect.stringContaining('silent for 45000 ms') } });
  });

  it('stop() cancels a pending attempt and ends the running one without reporting it', async () => {
    s = await streaming();
    s.source.schedule(0);
    await flush();
    s.source.schedule(5_000); // replaces nothing running: a second attempt, pending
    await s.source.stop();
    await s.parts.timers.advance(10_000);
    expect(s.parts.transport.to('/v1/stream')).toHaveLength(1);
    expect(s.parts.eventNames()).toEqual(['stream-opened']);
    expect(s.parts.timers.pendingCount).toBe(0);
  });
});
