import { json, errorBody, type FakeResponse } from '../../test/helpers/fake-transport.js';
import type { TransportRequest } from '../http/transport.js';
import { parsePatch, type Patch } from '@vane/client-core';
import { flush } from '../../test/helpers/manual-timers.js';
import { SourceParts, syncAnswer, syncBody } from '../../test/helpers/source-parts.js';
import { ClientClosedError, UnexpectedResponseError } from '../errors.js';

/** A service that answers `/v1/sync` with whatever the test queued, then with the current revision. */
function service(revision = 1) {
  const queued: Array<FakeResponse | Promise<FakeResponse> | ((req: TransportRequest) => Promise<FakeResponse>)> = [];
  const state = { revision };
  const parts = new SourceParts((req) => {
    const next = queued.shift();
    if (typeof next === 'function') return next(req);
    if (next !== undefined) return next;
    if (req.headers['if-none-match'] === `"r${state.revision}"`)
      return { status: 304, headers: { etag: `"r${state.revision}"` } };
    return syncAnswer(state.revision);
  });
  return { parts, queued, state };
}

const patch = (base: number, revision: number, value: number): Patch =>
  parsePatch({ base, revision, configs: { 'db.pool.max': value }, flags: {}, secrets: {} });

/** An answer that never comes: the request ends only when its signal aborts. */
const hanging = (req: TransportRequest): Promise<FakeResponse> =>
  new Promise((_, reject) =>
    req.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))),
  );

describe('SnapshotSync', () => {
  let parts: SourceParts;
  afterEach(() => parts.close());

  it('the initial sync is unconditional; later syncs send the ETag and a 304 confirms the snapshot', async () => {
    const s = service(3);
    parts = s.parts;
    await expect(parts.sync.initial()).resolves.toEqual({ status: 'updated', revision: 3 });
    await expect(parts.sync.sync()).resolves.toEqual({ status: 'not-modified', revision: 3 });
    const sent = parts.transport.to('/v1/sync').map((r) => r.headers['if-none-match']);
    expect(sent).toEqual([undefined, '"r3"']);
    expect(parts.store.snapshot.revision).toBe(3);
    // Each success is reported once on the channel, failures never (they are the caller's).
    expect(parts.eventNames()).toEqual(['synced', 'synced']);
  });

  it('a sync asked for while another waits to start joins it; one asked for while it runs is queued', async () => {
    const s = service(1);
    parts = s.parts;
    await parts.sync.initial();
    let release!: (r: FakeResponse) => void;
    s.queued.push(new Promise<FakeResponse>((resolve) => (release = resolve)));
    const first = parts.sync.sync();
    expect(parts.sync.sync()).toBe(first);
    await flush();
    const second = parts.sync.sync();
    const third = parts.sync.sync();
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    s.state.revision = 2;
    release(syncAnswer(2));
    await expect(first).resolves.toEqual({ status: 'updated', revision: 2 });
    await expect(second).resolves.toEqual({ status: 'not-modified', revision: 2 });
    expect(parts.transport.to('/v1/sync')).toHaveLength(3);
  });

  it('applies a patch on its base in turn; a patch on another base resyncs; a stale one is dropped', async () => {
    const s = service(5);
    parts = s.parts;
    await parts.sync.initial();
    await parts.sync.patch(patch(5, 6, 60));
    expect(parts.store.snapshot.revision).toBe(6);
    expect(parts.store.snapshot.configs.get('db.pool.max')).toBe(60);
    await parts.sync.patch(patch(4, 5, 50)); // older than what is served
    expect(parts.store.snapshot.revision).toBe(6);
    s.state.revision = 9;
    await parts.sync.patch(patch(7, 8, 80)); // a gap: the whole snapshot is fetched
    expect(parts.store.snapshot.revision).toBe(9);
    expect(parts.transport.to('/v1/sync')).toHaveLength(2);
  });

  it('a resync event syncs only when the store does not have its revision', async () => {
    const s = service(4);
    parts = s.parts;
    await parts.sync.initial();
    await parts.sync.resync(4);
    expect(parts.transport.to('/v1/sync')).toHaveLength(1);
    s.state.revision = 5;
    await parts.sync.resync(5);
    expect(parts.store.snapshot.revision).toBe(5);
    expect(parts.transport.to('/v1/sync')).toHaveLength(2);
  });

  it('patches and syncs run one at a time, in arrival order', async () => {
    const s = service(1);
    parts = s.parts;
    await parts.sync.initial();
    let release!: (r: FakeResponse) => void;
    s.queued.push(new Promise<FakeResponse>((resolve) => (release = resolve)));
    const revisions: number[] = [];
    parts.store.onUpdate((u) => revisions.push(u.revision));
    const syncing = parts.sync.sync();
    const patched = parts.sync.patch(patch(2, 3, 30));
    await flush();
    expect(revisions).toEqual([]); // the patch waits for the sync before it
    release(json(200, syncBody(2), { etag: '"r2"' }));
    await Promise.all([syncing, patched]);
    expect(revisions).toEqual([2, 3]);
  });

  it('throws every failure to its caller with its type: 5xx, a malformed snapshot, one nested too deep', async () => {
    const s = service(1);
    parts = s.parts;
    await parts.sync.initial();
    s.queued.push(errorBody(503, 'unavailable'));
    await expect(parts.sync.sync()).rejects.toMatchObject({ code: 'VANE_UNEXPECTED_RESPONSE', status: 503 });
    s.queued.push(json(200, { revision: 'x' }));
    await expect(parts.sync.sync()).rejects.toThrow(UnexpectedResponseError);
    s.queued.push({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '['.repeat(100_000) + ']'.repeat(100_000),
    });
    await expect(parts.sync.sync()).rejects.toThrow(/nested too deep|malformed/);
    expect(parts.eventNames()).toEqual(['synced']);
  });

  it('a sync cut by close() rejects with ClientClosedError, and nothing runs after it', async () => {
    const s = service(1);
    parts = s.parts;
    await parts.sync.initial();
    s.queued.push(hanging);
    const pending = parts.sync.sync();
    await flush();
    parts.controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ClientClosedError);
    await expect(parts.sync.sync()).rejects.toBeInstanceOf(ClientClosedError);
    await parts.sync.patch(patch(1, 2, 2));
    expect(parts.store.snapshot.revision).toBe(1);
  });
});
