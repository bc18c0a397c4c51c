import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startVaneServer, type VaneServer, type VaneServerSeed } from '@vane/server';
import { until } from '@vane/server/testing';
import { VaneClient, type LiveResourceDefinition, type VaneClientOptions } from '../src/index.js';
import { REBUILD_SPAN_NAME } from '../src/telemetry/live-resource-telemetry.js';
import { VANE_METRICS } from '../src/telemetry/vane-metrics.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { ManualTimers } from './helpers/manual-timers.js';
import { OtelSdk } from './helpers/otel-sdk.js';

/**
 * Live resources' telemetry with the OpenTelemetry SDK registered
 * (in-memory exporters), driven through the local server: a rotated secret
 * and a changed config rebuild the resource, a bad password fails the
 * rebuild, an operation holding the old instance keeps it draining. No
 * key, secret value, secret name or connection string in any attribute.
 */
const M = VANE_METRICS;
const SK = 'svs_live_telemetry_secret_key_01';
const PASSWORDS = ['pw-GOOD-7c1e2', 'pw-NEXT-44b0d', 'pw-BAD-9e3a1'];
const URLS = ['postgres://app:CONN-PW-1f2e@db-1.internal/shop', 'postgres://app:CONN-PW-8d9c@db-2.internal/shop'];
/** Nothing recorded may contain these: the key, secret values, a secret's name, connection strings. */
const FORBIDDEN = [SK, ...PASSWORDS, 'db.password', 'CONN-PW', 'postgres://'];
const PG = { 'vane.service.slug': 'shop', 'vane.live_resource.name': 'pg' };

function seed(): VaneServerSeed {
  return {
    services: {
      shop: {
        kind: 'backend',
        keys: [SK],
        configs: { 'db.url': URLS[0]! },
        secrets: { 'db.password': { type: 'text', value: PASSWORDS[0]! } },
      },
    },
  };
}

/** What the test resource is: a pool built from the connection string and the password. */
interface FakePool {
  readonly url: string;
  readonly password: string;
}

let sdk: OtelSdk;
let server: VaneServer;
let timers: ManualTimers;
let logger: MemoryLogger;
const clients: VaneClient[] = [];

beforeEach(async () => {
  sdk = OtelSdk.install();
  server = await startVaneServer({ seed: seed(), port: 0 });
  timers = new ManualTimers();
  logger = new MemoryLogger();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
  const recorded = (await sdk.everyRecordedText()).join('\n');
  await sdk.uninstall();
  for (const forbidden of FORBIDDEN) expect(recorded).not.toContain(forbidden);
});

async function start(options: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('shop'),
    apiKey: SK,
    logger,
    timers,
    clock: timers,
    random: () => 0,
    ...options,
  });
  clients.push(client);
  return client;
}

/**
 * The resource: `create` opens a span of its own (as a database driver's
 * instrumentation would), `ready` refuses the bad password with a message
 * that quotes it and the connection string.
 */
function pg(overrides: Partial<LiveResourceDefinition<FakePool>> = {}): LiveResourceDefinition<FakePool> {
  return {
    name: 'pg',
    configs: ['db.url'],
    secrets: ['db.password'],
    create: ({ configs, secrets }) =>
      trace.getTracer('test-driver').startActiveSpan('pg.connect', (span) => {
        span.end();
        return { url: String(configs['db.url']), password: secrets['db.password']! };
      }),
    ready: (pool) => {
      if (pool.password === PASSWORDS[2])
        throw Object.assign(new Error(`password authentication failed for ${pool.url} (${pool.password})`), {
          code: '28P01',
        });
    },
    dispose: () => undefined,
    retryMinMs: 1000,
    ...overrides,
  };
}

/** Writes a secret, then resolves with the span of the rebuild it causes. */
async function rotate(password: string): Promise<ReadableSpan> {
  const ended = sdk.spanEnded(REBUILD_SPAN_NAME);
  server.admin.setSecret('shop', 'db.password', password, 'text');
  return ended;
}

async function connected(client: VaneClient): Promise<void> {
  await until(() => client.connected, 'stream connected', { timeoutMs: 5000 });
}

describe('live resource rebuilds', () => {
  it('a rotated secret, then a changed config: each rebuild counted and timed as a success, in a span of its own', async () => {
    const client = await start();
    await connected(client);
    const resource = await client.liveResource(pg());
    // The first build is not a rebuild: its failure rejects liveResource().
    expect(await sdk.points(M.liveResourceRebuilds.name)).toEqual([]);

    const span = await rotate(PASSWORDS[1]!);
    expect(resource.current.password).toBe(PASSWORDS[1]);
    const success = { ...PG, 'vane.live_resource.outcome': 'success' };
    expect(await sdk.points(M.liveResourceRebuilds.name)).toEqual([{ attributes: success, value: 1 }]);
    expect(await sdk.points(M.liveResourceRebuildDuration.name)).toEqual([
      { attributes: success, value: expect.any(Number), count: 1 },
    ]);
    expect(span).toMatchObject({ kind: 0, status: { code: 0 }, attributes: success });
    expect(span.parentSpanContext).toBeUndefined();
    // The spans create makes are children of the rebuild's.
    const connect = sdk.spans().filter((s) => s.name === 'pg.connect');
    expect(connect).toHaveLength(2);
    expect(connect[1]!.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(connect[0]!.parentSpanContext).toBeUndefined();

    const next = sdk.spanEnded(REBUILD_SPAN_NAME);
    server.admin.setConfig('shop', 'db.url', URLS[1]!);
    await next;
    expect(resource.current.url).toBe(URLS[1]);
    expect(await sdk.value(M.liveResourceRebuilds.name)).toEqual({ attributes: success, value: 2 });
    // Nothing borrowed the old instances: none is left draining.
    expect(await sdk.value(M.liveResourceDraining.name)).toEqual({ attributes: PG, value: 0 });
  });

  it("a rebuild caused by a client.sync() in a request is a trace of its own, not part of the request's", async () => {
    const client = await start({ stream: false });
    await client.liveResource(pg());
    server.admin.setSecret('shop', 'db.password', PASSWORDS[1]!, 'text');
    const ended = sdk.spanEnded(REBUILD_SPAN_NAME);
    const { span: request } = await sdk.inSpan('POST /refresh', () => client.sync());
    const rebuild = await ended;
    expect(rebuild.parentSpanContext).toBeUndefined();
    expect(rebuild.spanContext().traceId).not.toBe(request.spanContext().traceId);
    // The sync itself belongs to the request.
    const sync = sdk
      .spans()
      .filter((s) => s.name === 'GET /v1/sync')
      .at(-1)!;
    expect(sync.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  });

  it('a failing rebuild: counted as a failure with its stage, the span in error, each retry counted; then a success', async () => {
    const client = await start();
    await connected(client);
    const resource = await client.liveResource(pg());
    const failed = await rotate(PASSWORDS[2]!);
    expect(resource.status).toMatchObject({ state: 'failing', failures: 1 });
    const failure = { ...PG, 'vane.live_resource.outcome': 'failure', 'error.type': 'ready' };
    expect(failed).toMatchObject({ status: { code: 2 }, attributes: failure });
    expect(await sdk.value(M.liveResourceRebuilds.name)).toEqual({ attributes: failure, value: 1 });

    // The retry (backoff on the client's timers) fails again: counted again.
    const retried = sdk.spanEnded(REBUILD_SPAN_NAME);
    await timers.advance(1000);
    await retried;
    expect(resource.status.failures).toBe(2);
    expect(await sdk.value(M.liveResourceRebuilds.name)).toEqual({ attributes: failure, value: 2 });
    expect(await sdk.value(M.liveResourceRebuildDuration.name)).toMatchObject({ attributes: failure, count: 2 });

    // The next change is built at once: a success.
    await rotate(PASSWORDS[1]!);
    const success = { ...PG, 'vane.live_resource.outcome': 'success' };
    expect(await sdk.value(M.liveResourceRebuilds.name, success)).toEqual({ attributes: success, value: 1 });

    // A create that throws fails at stage create. What it threw (a connection string) went to the
    // log line the app asked for, never into telemetry (afterEach checks every attribute).
    let builds = 0;
    await client.liveResource(
      pg({
        name: 'pg-replica',
        create: ({ configs, secrets }) => {
          if (builds++ > 0) throw new Error(`cannot reach ${String(configs['db.url'])}`);
          return { url: String(configs['db.url']), password: secrets['db.password']! };
        },
      }),
    );
    const both = sdk.spansEnded(REBUILD_SPAN_NAME, 2);
    server.admin.setSecret('shop', 'db.password', PASSWORDS[0]!, 'text');
    await both;
    const replica = {
      'vane.service.slug': 'shop',
      'vane.live_resource.name': 'pg-replica',
      'vane.live_resource.outcome': 'failure',
      'error.type': 'create',
    };
    expect(await sdk.value(M.liveResourceRebuilds.name, replica)).toEqual({ attributes: replica, value: 1 });
    expect(await sdk.value(M.liveResourceRebuilds.name, success)).toEqual({ attributes: success, value: 2 });
    expect(logger.text('warn')).toContain('create failed at revision');
  });

  it('an operation holding the old instance keeps it draining until it finishes', async () => {
    const client = await start();
    await connected(client);
    const resource = await client.liveResource(pg());
    let finish!: () => void;
    const borrowed = resource.use(() => new Promise<void>((resolve) => (finish = resolve)));
    await rotate(PASSWORDS[1]!);
    expect(await sdk.value(M.liveResourceDraining.name)).toEqual({ attributes: PG, value: 1 });
    finish();
    await borrowed;
    await until(
      async () => (await sdk.value(M.liveResourceDraining.name))?.value === 0,
      'the old instance disposed of',
      {
        timeoutMs: 5000,
      },
    );
  });

  it('a resource defined without a name is recorded as _unnamed (its default name lists secret names)', async () => {
    const client = await start();
    await connected(client);
    const resource = await client.liveResource(pg({ name: undefined }));
    expect(resource.name).toBe('db.url+db.password');
    const span = await rotate(PASSWORDS[1]!);
    expect(span.attributes['vane.live_resource.name']).toBe('_unnamed');
    expect(await sdk.value(M.liveResourceRebuilds.name)).toMatchObject({
      attributes: { 'vane.live_resource.name': '_unnamed' },
      value: 1,
    });
  });

  it('with the tracer only (no meter provider): the span, and no metric', async () => {
    await sdk.uninstall();
    sdk = OtelSdk.install({ metrics: false });
    const client = await start();
    await connected(client);
    await client.liveResource(pg());
    const span = await rotate(PASSWORDS[1]!);
    expect(span.attributes['vane.live_resource.outcome']).toBe('success');
    expect((await sdk.collect()).filter((m) => m.descriptor.name.startsWith('vane.'))).toEqual([]);
  });

  it('telemetry: false: the resource is rebuilt as ever, and nothing is recorded', async () => {
    const client = await start({ telemetry: false });
    await connected(client);
    const resource = await client.liveResource(pg());
    server.admin.setSecret('shop', 'db.password', PASSWORDS[1]!, 'text');
    await until(() => resource.status.generation === 2, 'rebuilt', { timeoutMs: 5000 });
    expect(resource.current.password).toBe(PASSWORDS[1]);
    expect((await sdk.collect()).filter((m) => m.descriptor.name.startsWith('vane.'))).toEqual([]);
    expect(sdk.spans().map((s) => s.name)).toEqual(['pg.connect', 'pg.connect']);
  });
});
