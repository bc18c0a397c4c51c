import { startLocalServer, type LocalServer } from '@vane/server';
import { TEST_KEYS, adminRequest, testSeed, until } from '@vane/server/testing';
import { FaultProxy } from '@vane/test-harness';
import {
  VaneBrowserClient,
  type VaneBrowserOptions,
  type VaneChannel,
  type VaneLocks,
  type VaneShare,
  type VaneUpdate,
} from '../src/index.js';
import { shareName } from '../src/share.js';
import { FakeDocument, loopbackFetch, type LoopbackFetch } from '../../../test/support/loopback-fetch.js';

/**
 * Clients of one base URL and key sharing a stream, in Node against the real
 * local server (behind a proxy that can cut streams), with a lock manager
 * and channels of their own standing in for `navigator.locks` and
 * `BroadcastChannel` (which Node 20 lacks): the same rules as a browser's
 * (a queue per lock name, requests abortable while queued; messages
 * structured-cloned to every other channel of the name, a task later).
 */

class FakeLocks implements VaneLocks {
  readonly #held = new Set<string>();
  readonly #queues = new Map<string, Array<() => void>>();
  /** Every name asked for. */
  readonly names = new Set<string>();

  request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void>): Promise<unknown> {
    this.names.add(name);
    const queue = this.#queues.get(name) ?? [];
    this.#queues.set(name, queue);
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        options.signal.removeEventListener('abort', dropped);
        this.#held.add(name);
        callback()
          .then(resolve, reject)
          .finally(() => {
            this.#held.delete(name);
            this.#next(name);
          });
      };
      const dropped = (): void => {
        const at = queue.indexOf(grant);
        if (at < 0) return;
        queue.splice(at, 1);
        reject(new Error('AbortError'));
      };
      if (options.signal.aborted) return reject(new Error('AbortError'));
      options.signal.addEventListener('abort', dropped);
      queue.push(grant);
      queueMicrotask(() => this.#next(name));
    });
  }

  #next(name: string): void {
    if (!this.#held.has(name)) this.#queues.get(name)?.shift()?.();
  }
}

class FakeChannels {
  readonly #open = new Map<string, Set<VaneChannel>>();
  /** Every message posted, as its receivers get it. */
  readonly posted: unknown[] = [];

  channel(name: string): VaneChannel {
    const peers = this.#open.get(name) ?? new Set<VaneChannel>();
    this.#open.set(name, peers);
    const channel: VaneChannel = {
      onmessage: null,
      postMessage: (message) => {
        const data = structuredClone(message);
        this.posted.push(data);
        for (const peer of peers)
          if (peer !== channel) setTimeout(() => peers.has(peer) && peer.onmessage?.({ data }), 0);
      },
      close: () => void peers.delete(channel),
    };
    peers.add(channel);
    return channel;
  }
}

jest.setTimeout(30_000);

let server: LocalServer;
let proxy: FaultProxy;
let net: LoopbackFetch;
let locks: FakeLocks;
let channels: FakeChannels;
let share: VaneShare;
const clients: VaneBrowserClient[] = [];

beforeEach(async () => {
  server = await startLocalServer({ seed: testSeed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
  net = loopbackFetch();
  locks = new FakeLocks();
  channels = new FakeChannels();
  share = { locks, channel: (name) => channels.channel(name) };
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await net.close();
  await proxy.close();
  await server.close();
});

function client(options: Partial<VaneBrowserOptions> = {}): VaneBrowserClient {
  const made = new VaneBrowserClient({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: TEST_KEYS.shopPublic,
    fetch: net.fetch,
    share,
    backoffMinMs: 5,
    backoffMaxMs: 20,
    ...options,
  });
  clients.push(made);
  return made;
}

const setConfig = (key: string, value: unknown): Promise<unknown> =>
  adminRequest(server, 'PUT', `/services/shop/configs/${key}`, { value });

const streamsHeld = (count: number): Promise<void> =>
  until(() => server.stats().streams === count, `${count} stream(s) held by the server`, { timeoutMs: 10_000 });

/** The updates a client emits for a config key (each names the revision it brought). */
function revisionsOf(c: VaneBrowserClient, key: string): number[] {
  const seen: number[] = [];
  c.subscribe((update: VaneUpdate) => update.configs.includes(key) && seen.push(update.revision));
  return seen;
}

it('three clients of one base URL and key hold one stream; each sees a change in one update', async () => {
  const [a, b, c] = [client(), client(), client()];
  await Promise.all([a.start(), b.start(), c.start()]);
  await until(() => [a, b, c].every((each) => each.status.connected), 'all connected', { timeoutMs: 10_000 });
  const seen = [a, b, c].map((each) => revisionsOf(each, 'db.host'));
  await streamsHeld(1);
  // One sync and one stream for the three: the followers took the holder's state.
  expect(net.count('/v1/stream')).toBe(1);
  expect(net.count('/v1/sync')).toBe(1);
  await setConfig('db.host', 'shared');
  await until(() => [a, b, c].every((each) => each.config('db.host') === 'shared'), 'the change in every client', {
    timeoutMs: 10_000,
  });
  const revision = a.status.revision;
  expect([b.status.revision, c.status.revision]).toEqual([revision, revision]);
  expect(seen).toEqual([[revision], [revision], [revision]]);
  expect(server.stats().streams).toBe(1);
});

it('the lock and channel names are a hash of base URL and key, never the key', async () => {
  const c = client();
  await c.start();
  const [name] = [...locks.names];
  expect(name).toBe(shareName(new URL(proxy.baseUrl('shop')).href, TEST_KEYS.shopPublic));
  expect(name).toMatch(/^vane:[0-9a-z]+$/);
  expect(name).not.toContain(TEST_KEYS.shopPublic);
  expect(name).not.toContain(TEST_KEYS.shopPublic.slice(-8));
  // Another key or another base URL: another name.
  expect(shareName(new URL(proxy.baseUrl('shop')).href, `${TEST_KEYS.shopPublic}x`)).not.toBe(name);
  expect(shareName(new URL(proxy.baseUrl('web')).href, TEST_KEYS.shopPublic)).not.toBe(name);
});

it('the holder closes: the lock passes to a follower, which catches up with Last-Event-ID', async () => {
  const holder = client();
  await holder.start();
  const follower = client();
  await follower.start();
  await until(() => follower.status.connected, 'the follower connected through the holder', { timeoutMs: 10_000 });
  const revision = follower.status.revision;
  holder.close();
  // A change while no stream is held: the new holder's stream replays it.
  await setConfig('db.host', 'during handover');
  await until(() => follower.config('db.host') === 'during handover', 'the catch-up', { timeoutMs: 10_000 });
  await until(() => follower.status.connected && follower.status.mode === 'stream', 'the new holder streaming', {
    timeoutMs: 10_000,
  });
  const streams = net.sent.filter((r) => r.path === '/v1/stream');
  expect(streams).toHaveLength(2);
  expect(streams[1]!.headers['last-event-id']).toBe(String(revision));
  await streamsHeld(1);
});

it('a follower is disconnected and stale when the holder is, and live again with it', async () => {
  const holder = client({ ttlMs: 50, streamCooldownMs: 200 });
  const follower = client();
  await Promise.all([holder.start(), follower.start()]);
  await until(() => follower.status.connected, 'connected', { timeoutMs: 10_000 });
  // The service unreachable for the holder: its stream and every request reset.
  proxy.onRequest(() => 'reset');
  proxy.cutStreams(true);
  await until(() => holder.status.stale && !holder.status.connected, 'the holder stale', { timeoutMs: 10_000 });
  await until(() => follower.status.stale && !follower.status.connected, 'the follower stale', { timeoutMs: 10_000 });
  expect(follower.status.mode).toBe(holder.status.mode);
  // Reachable again: the holder's stream (or poll) confirms the values, and the follower hears it.
  await setConfig('db.host', 'after the outage');
  proxy.onRequest(undefined);
  proxy.cutStreams(false);
  await until(() => follower.config('db.host') === 'after the outage', 'the change in the follower', {
    timeoutMs: 10_000,
  });
  await until(() => !follower.status.stale && follower.status.connected, 'the follower live', { timeoutMs: 10_000 });
});

it('a page hidden long hands the stream over, and catches up through the holder when shown', async () => {
  const hidden = new FakeDocument();
  const first = client({ document: hidden, hiddenPauseMs: 20 });
  await first.start();
  const second = client();
  await second.start();
  await until(() => second.status.connected, 'connected', { timeoutMs: 10_000 });
  hidden.set('hidden');
  await until(() => first.status.mode === 'paused', 'the hidden one paused', { timeoutMs: 10_000 });
  await until(() => second.status.mode === 'stream' && second.status.connected, 'the other holding the stream', {
    timeoutMs: 10_000,
  });
  await setConfig('db.host', 'while hidden');
  await until(() => second.config('db.host') === 'while hidden', 'the change in the visible one', {
    timeoutMs: 10_000,
  });
  expect(first.config('db.host')).toBe('localhost');
  hidden.set('visible');
  await until(() => first.config('db.host') === 'while hidden', 'the catch-up when shown', { timeoutMs: 10_000 });
  await until(() => first.status.connected, 'connected again, through the holder', { timeoutMs: 10_000 });
  await streamsHeld(1);
});

it('A/B answers stay per client: each asks for its own user', async () => {
  const [a, b] = [client({ user: { userId: 'u-1' } }), client({ user: { userId: 'u-2' } })];
  await Promise.all([a.start(), b.start()]);
  await Promise.all([a.evaluateAb(['new-checkout']), b.evaluateAb(['new-checkout'])]);
  const users = proxy.requests
    .filter((r) => r.path === '/v1/flags/evaluate-ab')
    .map((r) => (JSON.parse(r.body.toString()) as { user_id: string }).user_id);
  expect(users.sort()).toEqual(['u-1', 'u-2']);
});

it('without a share (share: false, or no navigator.locks as in Node) each client streams on its own', async () => {
  const [a, b, c] = [client({ share: false }), client({ share: true }), client({ share: true })];
  await Promise.all([a.start(), b.start(), c.start()]);
  await until(() => [a, b, c].every((each) => each.status.connected), 'all connected', { timeoutMs: 10_000 });
  await streamsHeld(3);
  expect(locks.names.size).toBe(0);
  expect(channels.posted).toEqual([]);
});
