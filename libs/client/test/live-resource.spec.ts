import { readFileSync } from 'node:fs';
import { startVaneServer, type VaneServer, type VaneServerSeed } from '@vane/server';
import { VaneClient, type LiveResource, type LiveResourceDefinition, type LiveResourceEvent } from '../src/index.js';
import {
  ClientClosedError,
  InvalidArgumentError,
  LiveResourceBuildError,
  LiveResourceClosedError,
} from '../src/errors.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { ManualTimers, flush } from './helpers/manual-timers.js';
import { until } from '@vane/server/testing';

const SK = 'svs_live_resource_secret_key_01';
const PASSWORDS = ['pw-ONE-5f1c2', 'pw-TWO-8a7d3', 'pw-BAD-0e9b4', 'pw-FOUR-77c1e', 'pw-FIVE-1d2e3'];
const PEM = ['pem-FILE-v1-c4a1', 'pem-FILE-v2-9b0f'];

function seed(): VaneServerSeed {
  return {
    services: {
      shop: {
        kind: 'backend',
        keys: [SK],
        configs: { 'db.host': 'db-1.internal', 'db.user': 'app', 'other.key': 1 },
        flags: { beta: { is_enabled: false } },
        secrets: {
          'db.password': { type: 'text', value: PASSWORDS[0]! },
          'db.ca': { type: 'file', value: PEM[0]! },
        },
      },
    },
  };
}

/** What the test resource is: the values it was built from, and whether it was disposed of. */
interface FakePool {
  readonly id: number;
  readonly host: unknown;
  readonly password: string;
  readonly ca: string;
  disposed: boolean;
}

/** A deferred the test settles by hand. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void; fail: (err: Error) => void } {
  let open!: (value: T) => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

let server: VaneServer;
let timers: ManualTimers;
let logger: MemoryLogger;
let client: VaneClient;
let pools: FakePool[];
let events: LiveResourceEvent[];
/** Set by a test to make the next `create` calls wait, or fail. */
let createHook: ((pool: FakePool) => Promise<void> | void) | undefined;
let readyHook: ((pool: FakePool) => Promise<void> | void) | undefined;

function definition(overrides: Partial<LiveResourceDefinition<FakePool>> = {}): LiveResourceDefinition<FakePool> {
  return {
    name: 'pool',
    configs: ['db.host'],
    secrets: ['db.password'],
    secretFiles: ['db.ca'],
    create: async ({ configs, secrets, secretFiles }) => {
      const pool: FakePool = {
        id: pools.length + 1,
        host: configs['db.host'],
        password: secrets['db.password']!,
        ca: readFileSync(secretFiles['db.ca']!, 'utf8'),
        disposed: false,
      };
      pools.push(pool);
      await createHook?.(pool);
      return pool;
    },
    ready: (pool: FakePool) => readyHook?.(pool),
    dispose: (pool: FakePool) => {
      pool.disposed = true;
    },
    ...overrides,
  };
}

async function open(overrides: Partial<LiveResourceDefinition<FakePool>> = {}): Promise<LiveResource<FakePool>> {
  const resource = await client.liveResource(definition(overrides));
  resource.onEvent((e) => events.push(e));
  return resource;
}

/** Resolves with the next event of `type` (a bounded wait on the event, not a sleep). */
function next<K extends LiveResourceEvent['type']>(
  resource: LiveResource<FakePool>,
  type: K,
  timeoutMs = 5000,
): Promise<Extract<LiveResourceEvent, { type: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${type} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = resource.onEvent((e) => {
      if (e.type !== type) return;
      clearTimeout(timer);
      off();
      resolve(e as Extract<LiveResourceEvent, { type: K }>);
    });
  });
}

/** Writes a secret and waits until the client has applied it. */
async function rotate(key: string, value: string): Promise<void> {
  const { revision } = server.admin.setSecret('shop', key, value);
  await until(() => client.revision >= revision, `revision ${revision} applied`, { timeoutMs: 5000 });
}

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
  timers = new ManualTimers();
  logger = new MemoryLogger();
  pools = [];
  events = [];
  createHook = undefined;
  readyHook = undefined;
  client = await VaneClient.create({
    baseUrl: server.baseUrl('shop'),
    apiKey: SK,
    logger,
    timers,
    clock: timers,
    random: () => 0,
  });
  await until(() => client.connected, 'stream connected', { timeoutMs: 5000 });
});

afterEach(async () => {
  await client.close();
  await server.close();
  // Nothing logged or emitted may carry a secret value.
  const reported = [
    logger.text(),
    ...events.map((e) => `${JSON.stringify(e)} ${'error' in e ? chain(e.error) : ''}`),
  ].join('\n');
  for (const secret of [...PASSWORDS, ...PEM]) expect(reported).not.toContain(secret);
});

/** Every message of an error and its causes, as one text. */
function chain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err; e instanceof Error; e = e.cause) parts.push(`${e.name} ${e.message} ${String(e)}`);
  return parts.join(' | ');
}

describe('a live resource', () => {
  it('is built at open from the values it names, and lent by current and use()', async () => {
    const resource = await open();
    expect(pools).toHaveLength(1);
    expect(resource.current).toBe(pools[0]);
    expect(resource.current).toMatchObject({ host: 'db-1.internal', password: PASSWORDS[0], ca: PEM[0] });
    await expect(resource.use((p) => `used ${p.id}`)).resolves.toBe('used 1');
    expect(resource.status).toMatchObject({ state: 'ready', generation: 1, revision: client.revision, failures: 0 });
    expect(resource.name).toBe('pool');
  });

  it('is rebuilt once per change of a value it names, and not for other changes', async () => {
    const resource = await open();
    const rebuilt = next(resource, 'rebuilt');
    const disposed = next(resource, 'disposed');
    server.admin.setConfig('shop', 'other.key', 2);
    server.admin.setFlag('shop', 'beta', { is_enabled: true });
    await rotate('db.password', PASSWORDS[1]!);
    await expect(rebuilt).resolves.toMatchObject({ generation: 2, keys: ['db.password'], revision: client.revision });
    await expect(disposed).resolves.toMatchObject({ generation: 1, drained: true });
    expect(pools).toHaveLength(2);
    expect(resource.current).toBe(pools[1]);
    expect(resource.current.password).toBe(PASSWORDS[1]);
    expect(pools[0]!.disposed).toBe(true);
    expect(pools[1]!.disposed).toBe(false);

    // A file secret and a config are followed too; the file is read with its new content.
    const again = next(resource, 'rebuilt');
    const { revision } = server.admin.setSecret('shop', 'db.ca', PEM[1]!, 'file');
    await expect(again).resolves.toMatchObject({ generation: 3, keys: ['db.ca'], revision });
    expect(resource.current.ca).toBe(PEM[1]);
    const third = next(resource, 'rebuilt');
    server.admin.setConfig('shop', 'db.host', 'db-2.internal');
    await expect(third).resolves.toMatchObject({ generation: 4, keys: ['db.host'] });
    expect(resource.current.host).toBe('db-2.internal');
    expect(pools).toHaveLength(4);
  });

  it('disposes of an old instance only once the operations that borrowed it have finished', async () => {
    const resource = await open();
    const operation = gate<string>();
    const borrowed = resource.use(async (p) => `${p.id}:${await operation.promise}`);
    const rebuilt = next(resource, 'rebuilt');
    await rotate('db.password', PASSWORDS[1]!);
    await rebuilt;
    // New users get the new instance while the old one is still lent.
    await expect(resource.use((p) => p.id)).resolves.toBe(2);
    await flush();
    expect(pools[0]!.disposed).toBe(false);
    expect(resource.status.draining).toBe(1);
    const disposed = next(resource, 'disposed');
    operation.open('done');
    await expect(borrowed).resolves.toBe('1:done');
    await expect(disposed).resolves.toMatchObject({ generation: 1, drained: true });
    expect(pools[0]!.disposed).toBe(true);
    expect(resource.status.draining).toBe(0);
  });

  it('disposes of an old instance after drainTimeoutMs even if a borrower never finishes', async () => {
    const resource = await open({ drainTimeoutMs: 5000 });
    const never = gate();
    void resource.use(() => never.promise);
    const rebuilt = next(resource, 'rebuilt');
    await rotate('db.password', PASSWORDS[1]!);
    await rebuilt;
    await timers.advance(4999);
    expect(pools[0]!.disposed).toBe(false);
    const disposed = next(resource, 'disposed');
    await timers.advance(1);
    await expect(disposed).resolves.toMatchObject({ generation: 1, drained: false });
    expect(pools[0]!.disposed).toBe(true);
    expect(logger.text('warn')).toContain('disposing of generation 1 with 1 operation(s) still running');
    never.open();
  });

  it('keeps the working instance when a rebuild fails, reports it, retries with backoff and on the next change', async () => {
    const resource = await open({ retryMinMs: 1000, retryMaxMs: 8000 });
    readyHook = (p) => {
      if (p.password === PASSWORDS[2]) throw new Error(`password authentication failed (tried ${p.password})`);
    };
    const failed = next(resource, 'rebuild-failed');
    await rotate('db.password', PASSWORDS[2]!);
    const event = await failed;
    expect(event).toMatchObject({ keys: ['db.password'], failures: 1, retryInMs: 1000 });
    expect(event.error).toBeInstanceOf(LiveResourceBuildError);
    expect(event.error).toMatchObject({ code: 'VANE_LIVE_RESOURCE_BUILD_FAILED', stage: 'ready', resource: 'pool' });
    expect(event.error.message).toContain('password authentication failed (tried [redacted])');
    // The working instance stays in service; the new one was disposed of.
    expect(resource.current).toBe(pools[0]);
    expect(pools[1]!.disposed).toBe(true);
    expect(resource.status).toMatchObject({ state: 'failing', generation: 1, failures: 1, lastError: event.error });
    expect(resource.status.retryAtMs).toBe(timers.now() + 1000);
    expect(logger.text('warn')).toContain('the instance in service (generation 1) stays; retry in 1000 ms');

    // Retried with backoff on the client's timers: 1 s, then 2 s.
    const second = next(resource, 'rebuild-failed');
    await timers.advance(1000);
    await expect(second).resolves.toMatchObject({ failures: 2, retryInMs: 2000 });
    expect(pools).toHaveLength(3);
    await timers.advance(1999);
    expect(pools).toHaveLength(3);

    // The next change is built at once, without waiting for the backoff.
    const rebuilt = next(resource, 'rebuilt');
    await rotate('db.password', PASSWORDS[3]!);
    await expect(rebuilt).resolves.toMatchObject({ generation: 2 });
    expect(resource.current.password).toBe(PASSWORDS[3]);
    expect(resource.status).toMatchObject({ state: 'ready', failures: 0, lastError: null, retryAtMs: null });
    expect(timers.pendingDelays()).not.toContain(1);
  });

  it('recovers without building when the value goes back to the one in service', async () => {
    const resource = await open();
    readyHook = (p) => {
      if (p.password === PASSWORDS[2]) throw new Error('not ready');
    };
    const failed = next(resource, 'rebuild-failed');
    await rotate('db.password', PASSWORDS[2]!);
    await failed;
    await rotate('db.password', PASSWORDS[0]!);
    await until(() => resource.status.state === 'ready', 'ready again');
    expect(pools).toHaveLength(2);
    expect(resource.current).toBe(pools[0]);
    expect(resource.status.lastError).toBeNull();
  });

  it('builds the changes that arrive during a rebuild once, from the latest values', async () => {
    const resource = await open();
    const slow = gate();
    createHook = () => slow.promise;
    await rotate('db.password', PASSWORDS[1]!);
    await until(() => pools.length === 2, 'second build started');
    createHook = undefined;
    await rotate('db.password', PASSWORDS[3]!);
    server.admin.setConfig('shop', 'db.host', 'db-3.internal');
    await rotate('db.password', PASSWORDS[4]!);
    expect(resource.status.state).toBe('rebuilding');
    const second = next(resource, 'rebuilt');
    slow.open();
    await expect(second).resolves.toMatchObject({ generation: 2, keys: ['db.password'] });
    const third = await next(resource, 'rebuilt');
    expect(third.generation).toBe(3);
    expect([...third.keys].sort()).toEqual(['db.host', 'db.password']);
    expect(pools.map((p) => p.password)).toEqual([PASSWORDS[0], PASSWORDS[1], PASSWORDS[4]]);
    expect(resource.current).toMatchObject({ password: PASSWORDS[4], host: 'db-3.internal' });
    await until(() => pools[1]!.disposed, 'generation 2 disposed');
    expect(pools).toHaveLength(3);
  });

  it('fails a build that outlives buildTimeoutMs and disposes of what arrives late', async () => {
    const resource = await open({ buildTimeoutMs: 10_000 });
    const late = gate();
    createHook = () => late.promise;
    const failed = next(resource, 'rebuild-failed');
    await rotate('db.password', PASSWORDS[1]!);
    await until(() => pools.length === 2, 'second build started');
    await timers.advance(10_000);
    const event = await failed;
    expect(event.error.stage).toBe('timeout');
    expect(event.error.message).toContain('buildTimeoutMs (10000 ms)');
    expect(resource.current).toBe(pools[0]);
    late.open();
    await until(() => pools[1]!.disposed, 'the late instance disposed of');
    expect(resource.current).toBe(pools[0]);
  });

  it('builds at once a change that arrived during the first build', async () => {
    const slow = gate();
    createHook = () => slow.promise;
    const opening = client.liveResource(definition());
    await until(() => pools.length === 1, 'first build started');
    createHook = undefined;
    await rotate('db.password', PASSWORDS[1]!);
    slow.open();
    const resource = await opening;
    await until(() => resource.status.generation === 2, 'rebuilt after open');
    expect(resource.current.password).toBe(PASSWORDS[1]);
  });

  it('does not open when the first build fails, and leaves nothing behind', async () => {
    await expect(client.liveResource(definition({ secrets: ['db.missing'] as never[] }))).rejects.toMatchObject({
      code: 'VANE_LIVE_RESOURCE_BUILD_FAILED',
      stage: 'values',
      cause: { code: 'VANE_SECRET_NOT_FOUND' },
    });
    expect(pools).toHaveLength(0);

    readyHook = () => {
      throw Object.assign(new Error(`auth failed for ${PASSWORDS[0]}`), { code: '28P01' });
    };
    const err = (await client.liveResource(definition()).catch((e: unknown) => e)) as LiveResourceBuildError;
    expect(err).toBeInstanceOf(LiveResourceBuildError);
    expect(err.stage).toBe('ready');
    expect(err.message).toBe(
      `live resource "pool": ready failed at revision ${client.revision}: Error [28P01]: auth failed for [redacted]`,
    );
    expect(err.cause).toMatchObject({ code: '28P01', message: 'auth failed for [redacted]' });
    expect(chain(err)).not.toContain(PASSWORDS[0]);
    expect(pools[0]!.disposed).toBe(true);
  });

  it('refuses a bad definition with a rejection naming the field', async () => {
    const bad = [
      definition({ create: undefined as never }),
      definition({ dispose: 'no' as never }),
      definition({ configs: [], secrets: [], secretFiles: [] }),
      definition({ drainTimeoutMs: -1 }),
      definition({ retryMinMs: 10, retryMaxMs: 5 }),
      definition({ buildTimeoutMs: 0 }),
    ];
    for (const d of bad) {
      const result = client.liveResource(d);
      await expect(result).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    await expect(client.liveResource(definition({ drainTimeoutMs: -1 }))).rejects.toThrow(
      'liveResource: drainTimeoutMs must be a finite number >= 0 of milliseconds',
    );
    expect(pools).toHaveLength(0);
  });

  it('close() disposes of every instance and stops following changes; then it refuses use', async () => {
    const resource = await open();
    const operation = gate();
    const borrowed = resource.use(() => operation.promise);
    const closing = resource.close();
    expect(resource.closed).toBe(true);
    expect(() => resource.current).toThrow(LiveResourceClosedError);
    await expect(resource.use(() => 1)).rejects.toMatchObject({ code: 'VANE_LIVE_RESOURCE_CLOSED' });
    await flush();
    expect(pools[0]!.disposed).toBe(false);
    operation.open();
    await borrowed;
    await closing;
    expect(pools[0]!.disposed).toBe(true);
    expect(resource.status.state).toBe('closed');
    await rotate('db.password', PASSWORDS[1]!);
    await flush();
    expect(pools).toHaveLength(1);
    expect(resource.close()).toBe(closing);
  });

  it('closes with its client, including a build in progress, and the client refuses new ones', async () => {
    const first = await open();
    const slow = gate();
    createHook = () => slow.promise;
    await rotate('db.password', PASSWORDS[1]!);
    await until(() => pools.length === 2, 'rebuild started');
    const opening = client.liveResource(definition({ name: 'second' }));
    await until(() => pools.length === 3, 'second resource building');
    await client.close();
    await expect(opening).rejects.toBeInstanceOf(ClientClosedError);
    expect(first.closed).toBe(true);
    expect(pools[0]!.disposed).toBe(true);
    slow.open();
    await until(() => pools[1]!.disposed && pools[2]!.disposed, 'late instances disposed of');
    await expect(client.liveResource(definition())).rejects.toBeInstanceOf(ClientClosedError);
  });
});
