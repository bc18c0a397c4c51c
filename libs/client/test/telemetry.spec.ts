import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVaneServer, systemClock, type VaneServer, type VaneServerSeed } from '@vane/server';
import { z } from 'zod';
import { FileBackupStore, VaneClient, defineSchema, type VaneClientOptions } from '../src/index.js';
import type { ClientTelemetry } from '../src/telemetry/client-telemetry.js';
import { VANE_METRICS } from '../src/telemetry/vane-metrics.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { ManualTimers } from './helpers/manual-timers.js';
import { OtelSdk } from './helpers/otel-sdk.js';
import { SHOP_SK, TLS_PEM, seed } from './helpers/seed.js';
import { jwtPlatform, jwtTrust, tempDir } from './helpers/workload-platforms.js';
import { until } from '@vane/server/testing';
import { FaultProxy, rawResponse } from '@vane/test-harness';

/**
 * Vane's telemetry with the OpenTelemetry SDK registered (in-memory
 * exporters), driven through the local server behind a fault proxy: every
 * metric and span, and never a key, a token or a secret value in them.
 */
const M = VANE_METRICS;
const WAIT_MS = 5000;
const SLUG = { 'vane.service.slug': 'shop' };
/** Nothing recorded may contain these: the API key, secret values, secret names. */
const FORBIDDEN = [SHOP_SK, 'TOPSECRET', 'rk_test', 'stripe.api_key', 'tls.client_pem', 'BEGIN CERTIFICATE'];

let sdk: OtelSdk;
let server: VaneServer;
let proxy: FaultProxy;
let timers: ManualTimers;
let logger: MemoryLogger;
/** Added to the client's clock to get the server's: -250 puts the server 250 ms behind. */
let serverOffsetMs: number;
const clients: VaneClient[] = [];
/** Tokens a test handed out: they must not be recorded either. */
const issued: string[] = [];

const isStream = (line: string): boolean => line.startsWith('GET /v1/stream ');
const isSync = (line: string): boolean => line.startsWith('GET /v1/sync ');

async function startServer(s: VaneServerSeed = seed()): Promise<void> {
  server = await startVaneServer({
    seed: s,
    port: 0,
    clock: { now: () => timers.now() + serverOffsetMs, setTimer: (cb, ms) => systemClock.setTimer(cb, ms) },
  });
  proxy = await FaultProxy.start(server.port);
}

beforeEach(async () => {
  sdk = OtelSdk.install();
  timers = new ManualTimers();
  logger = new MemoryLogger();
  serverOffsetMs = 0;
  issued.length = 0;
  await startServer();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await proxy.close();
  await server.close();
  const recorded = (await sdk.everyRecordedText()).join('\n');
  await sdk.uninstall();
  for (const secret of [...FORBIDDEN, ...issued]) expect(recorded).not.toContain(secret);
});

async function start(options: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  const client = await VaneClient.create({
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SHOP_SK,
    logger,
    timers,
    clock: timers,
    random: () => 0,
    ...options,
  });
  clients.push(client);
  return client;
}

async function modeGauge(): Promise<Record<string, number>> {
  const points = await sdk.points(M.syncMode.name);
  return Object.fromEntries(points.map((p) => [String(p.attributes['vane.sync.mode']), p.value]));
}

async function currentMode(): Promise<string | undefined> {
  return Object.entries(await modeGauge()).find(([, v]) => v === 1)?.[0];
}

describe('metrics', () => {
  it('after the start: revision, snapshot age, stream connected, mode stream, no rejected config, the initial sync by outcome', async () => {
    const client = await start();
    await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
    expect(await sdk.value(M.revision.name)).toEqual({ attributes: SLUG, value: client.revision });
    expect(await sdk.value(M.snapshotAge.name)).toEqual({ attributes: SLUG, value: 0 });
    await timers.advance(1500);
    expect((await sdk.value(M.snapshotAge.name))?.value).toBe(1.5);
    expect((await sdk.value(M.streamConnected.name))?.value).toBe(1);
    expect(await modeGauge()).toEqual({
      stream: 1,
      polling: 0,
      stale: 0,
      'rate-limited': 0,
      quarantined: 0,
      halted: 0,
      closed: 0,
    });
    expect((await sdk.value(M.invalidConfigs.name))?.value).toBe(0);
    expect(await sdk.value(M.syncDuration.name, { 'vane.sync.outcome': '200' })).toMatchObject({
      attributes: { ...SLUG, 'vane.sync.outcome': '200' },
      count: 1,
    });
    // Metrics whose instruments exist before anything happened to them are absent, not zero.
    expect(await sdk.points(M.propagationLag.name)).toEqual([]);
  });

  it('a change with its lag: the commit time on the wire against the apply time, and the changes by kind', async () => {
    serverOffsetMs = -250; // the server's clock 250 ms behind the app's: the lag reads 0.25 s more
    const client = await start();
    await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
    server.admin.setConfig('shop', 'db.pool.max', 30);
    const revision = server.admin.setFlag('shop', 'dark-mode', { is_enabled: true });
    await until(() => client.revision === revision, 'both patches applied', { timeoutMs: WAIT_MS });
    expect(await sdk.value(M.propagationLag.name)).toEqual({ attributes: SLUG, value: 0.5, count: 2 });
    expect(await sdk.value(M.changesApplied.name, { 'vane.change.kind': 'config' })).toMatchObject({ value: 1 });
    expect(await sdk.value(M.changesApplied.name, { 'vane.change.kind': 'flag' })).toMatchObject({ value: 1 });
    expect((await sdk.value(M.revision.name))?.value).toBe(revision);

    // A server clock ahead of the app's would give a negative lag: it is recorded as 0.
    serverOffsetMs = 10_000;
    const next = server.admin.setConfig('shop', 'db.pool.max', 31);
    await until(() => client.revision === next, 'third patch applied', { timeoutMs: WAIT_MS });
    expect(await sdk.value(M.propagationLag.name)).toMatchObject({ value: 0.5, count: 3 });
  });

  it('a stream cut, then the fallback to polling: connected 0, mode polling, the stream spans in error', async () => {
    const client = await start({ streamErrorThreshold: 2 });
    await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
    proxy.onRequest((line) => (isStream(line) ? 'reset' : undefined));
    proxy.reset(isStream);
    await until(() => logger.text('warn').includes('stream error 1 of 2'), 'first stream error', {
      timeoutMs: WAIT_MS,
    });
    await timers.advance(1000);
    await until(() => client.status.mode === 'polling', 'fallen back to polling', { timeoutMs: WAIT_MS });
    expect(await currentMode()).toBe('polling');
    expect((await sdk.value(M.streamConnected.name))?.value).toBe(0);
    const streams = sdk.spans().filter((s) => s.name === 'GET /v1/stream');
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams[0]!.status.code).toBe(0);
    expect(streams.at(-1)).toMatchObject({ status: { code: 2 }, attributes: { 'vane.operation': 'stream' } });
    expect(streams.at(-1)!.attributes['error.type']).toEqual(expect.any(String));
    // The fallback's sync: a 200 or a 304, both counted by outcome.
    const outcomes = (await sdk.points(M.syncDuration.name)).map((p) => p.attributes['vane.sync.outcome']);
    expect(outcomes).toEqual(expect.arrayContaining(['200']));
  });

  it('a 429: mode rate-limited, the sync counted under its error code, its span under its status', async () => {
    const client = await start({ stream: false, ttlMs: 60_000 });
    proxy.onRequest((line) =>
      isSync(line)
        ? rawResponse(429, '{"error":"rate_limited","message":"slow down"}', { 'retry-after': '30' })
        : undefined,
    );
    await timers.advance(60_000);
    await until(() => client.status.mode === 'rate-limited', 'rate limit reported', { timeoutMs: WAIT_MS });
    expect(await currentMode()).toBe('rate-limited');
    expect(await sdk.value(M.syncDuration.name, { 'vane.sync.outcome': 'VANE_RATE_LIMITED' })).toMatchObject({
      count: 1,
    });
    const limited = sdk.spans().find((s) => s.attributes['http.response.status_code'] === 429)!;
    expect(limited).toMatchObject({
      name: 'GET /v1/sync',
      status: { code: 2 },
      attributes: { 'error.type': '429', 'vane.operation': 'sync', 'url.template': '/v1/sync' },
    });
  });

  it('a stale start from the last-known-good backup: mode stale, then stream once the service answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vane-otel-lkg-'));
    try {
      const store = new FileBackupStore({ directory: join(dir, 'backups') });
      const lkg = { lastKnownGood: { store, initTimeoutMs: 2000 }, backoffMinMs: 20, backoffMaxMs: 40 };
      await (await start({ ...lkg, timers: undefined, clock: undefined })).close();
      proxy.onRequest(() => 'reset');
      const client = await start({ ...lkg, timers: undefined, clock: undefined });
      expect(client.status.mode).toBe('stale');
      expect(await currentMode()).toBe('stale');
      proxy.onRequest(undefined);
      await until(() => client.status.mode === 'stream', 'fresh again, on the stream', { timeoutMs: WAIT_MS });
      await until(async () => (await currentMode()) === 'stream', 'the metric to say stream');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('configs the schema rejects now', async () => {
    const schema = defineSchema({ configs: { 'db.pool.max': z.number().int().max(100) } });
    const client = await start({ schema });
    await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
    const revision = server.admin.setConfig('shop', 'db.pool.max', 500);
    await until(() => client.revision === revision, 'patch applied', { timeoutMs: WAIT_MS });
    expect((await sdk.value(M.invalidConfigs.name))?.value).toBe(1);
    const fixed = server.admin.setConfig('shop', 'db.pool.max', 50);
    await until(() => client.revision === fixed, 'fixed', { timeoutMs: WAIT_MS });
    expect((await sdk.value(M.invalidConfigs.name))?.value).toBe(0);
  });

  it('file secret write failures: a secrets directory turned unsafe refuses the update, and it is counted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vane-otel-secrets-'));
    try {
      const client = await start({ secretsDir: dir });
      await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
      await chmod(dir, 0o777);
      server.admin.setSecret('shop', 'tls.client_pem', `${TLS_PEM}rotated`, 'file');
      await until(
        async () => (await sdk.value(M.fileSecretWriteErrors.name))?.value === 1,
        'the failed write counted',
        { timeoutMs: WAIT_MS },
      );
      await chmod(dir, 0o700);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('A/B evaluations', () => {
  it('duration, keys per call and feature_flag.evaluation events on the app span; the user id only on opt-in', async () => {
    const client = await start({ stream: false });
    const { span, result } = await sdk.inSpan('GET /pricing', () =>
      client.evaluateAb(['always-on', 'dark-mode', 'always-on', 'nope'], {
        userId: 'u-1',
        attributes: { country: 'DE' },
      }),
    );
    expect(result).toEqual({ 'always-on': true, 'dark-mode': false, nope: false });
    expect(await sdk.value(M.abKeys.name)).toEqual({ attributes: SLUG, value: 3, count: 1 });
    expect(await sdk.value(M.abDuration.name)).toMatchObject({ attributes: SLUG, count: 1 });
    const events = span.events.map((e) => e.attributes);
    expect(events).toEqual([
      {
        'feature_flag.key': 'always-on',
        'feature_flag.provider.name': 'vane',
        'feature_flag.result.reason': 'targeting_match',
        'feature_flag.result.value': true,
        'feature_flag.version': String(client.revision),
      },
      expect.objectContaining({ 'feature_flag.key': 'dark-mode', 'feature_flag.result.value': false }),
      expect.objectContaining({
        'feature_flag.key': 'nope',
        'feature_flag.result.reason': 'error',
        'error.type': 'flag_not_found',
      }),
    ]);
    expect(span.events.every((e) => e.name === 'feature_flag.evaluation')).toBe(true);
    // The evaluate-ab call itself: a client span, child of the app's span.
    const call = sdk.spans().find((s) => s.name === 'POST /v1/flags/evaluate-ab')!;
    expect(call.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(call.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });

    const optedIn = await start({ stream: false, telemetry: { recordUserId: true } });
    const second = await sdk.inSpan('GET /pricing', () => optedIn.evaluateAb(['always-on'], { userId: 'u-7' }));
    expect(second.span.events[0]!.attributes).toMatchObject({ 'feature_flag.context.id': 'u-7' });
  });

  it('recordFlag(key, userId, from): the decision of a reader that is not the live one, at its revision', async () => {
    const client = await start({ stream: false });
    const view = client.view();
    try {
      const before = view.revision;
      server.admin.setFlag('shop', 'always-on', { is_enabled: false });
      await client.sync();
      expect(client.revision).toBeGreaterThan(before);
      // A guard decided on the request's pinned view; the live client already reads the change.
      const { span } = await sdk.inSpan('GET /guarded', async () =>
        client.telemetry.recordFlag('always-on', undefined, view),
      );
      expect(span.events.map((e) => e.attributes)).toEqual([
        expect.objectContaining({
          'feature_flag.key': 'always-on',
          'feature_flag.result.value': true,
          'feature_flag.version': String(before),
        }),
      ]);
    } finally {
      view.release();
    }
  });

  it('an answer from the cache (evaluateAb again, or evaluateAbCached) is recorded as a call is, with no evaluate-ab span', async () => {
    const client = await start({ stream: false });
    const user = { userId: 'u-1', attributes: { country: 'DE' } };
    await client.evaluateAb(['always-on', 'dark-mode'], user);
    const calls = (): number => sdk.spans().filter((s) => s.name === 'POST /v1/flags/evaluate-ab').length;
    expect(calls()).toBe(1);
    const again = await sdk.inSpan('GET /pricing', () => client.evaluateAb(['always-on', 'nope'], user));
    const now = await sdk.inSpan('GET /pricing', () => client.evaluateAbCached(['dark-mode', 'always-on'], user));
    expect({ ...again.result }).toEqual({ 'always-on': true, nope: false });
    expect({ ...now.result }).toEqual({ 'dark-mode': false, 'always-on': true });
    expect(calls()).toBe(1);
    expect(await sdk.value(M.abKeys.name)).toEqual({ attributes: SLUG, value: 6, count: 3 });
    expect(await sdk.value(M.abDuration.name)).toMatchObject({ attributes: SLUG, count: 3 });
    const version = String(client.revision);
    expect(again.span.events.map((e) => e.attributes)).toEqual([
      expect.objectContaining({
        'feature_flag.key': 'always-on',
        'feature_flag.result.reason': 'targeting_match',
        'feature_flag.result.value': true,
        'feature_flag.version': version,
      }),
      expect.objectContaining({
        'feature_flag.key': 'nope',
        'feature_flag.result.reason': 'error',
        'error.type': 'flag_not_found',
      }),
    ]);
    expect(
      now.span.events.map((e) => [
        e.name,
        e.attributes?.['feature_flag.key'],
        e.attributes?.['feature_flag.result.value'],
      ]),
    ).toEqual([
      ['feature_flag.evaluation', 'dark-mode', false],
      ['feature_flag.evaluation', 'always-on', true],
    ]);
  });

  it('failures: counted by error code, duration with error.type, error events', async () => {
    const client = await start({ stream: false });
    server.admin.setTenant({ ab_addon: false });
    const { span } = await sdk.inSpan('GET /pricing', () =>
      client.evaluateAb(['always-on'], { userId: 'u-1' }).catch((err: unknown) => err),
    );
    const failure = { ...SLUG, 'error.type': 'VANE_ADDON_NOT_AVAILABLE' };
    expect(await sdk.value(M.abErrors.name)).toEqual({ attributes: failure, value: 1 });
    expect(await sdk.value(M.abDuration.name)).toMatchObject({ attributes: failure, count: 1 });
    expect(span.events[0]!.attributes).toMatchObject({
      'feature_flag.key': 'always-on',
      'feature_flag.result.reason': 'error',
      'error.type': 'VANE_ADDON_NOT_AVAILABLE',
    });
    expect(sdk.spans().find((s) => s.name === 'POST /v1/flags/evaluate-ab')!.attributes['error.type']).toBe('403');
  });
});

describe('spans', () => {
  it('the initial sync and the stream connect, with HTTP attributes; secret writes with the key redacted', async () => {
    const client = await start();
    await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
    const port = proxy.port;
    expect(sdk.spans().find((s) => s.name === 'GET /v1/sync')).toMatchObject({
      kind: 2,
      attributes: {
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'server.address': 'shop.localhost',
        'server.port': port,
        'url.full': `http://shop.localhost:${port}/v1/sync`,
        'url.template': '/v1/sync',
        'vane.operation': 'sync',
        ...SLUG,
      },
    });
    expect(sdk.spans().find((s) => s.name === 'GET /v1/stream')).toMatchObject({
      attributes: { 'vane.operation': 'stream', 'http.response.status_code': 200 },
    });
    await client.setSecret('stripe.api_key', 'rk_test_TOPSECRET_2');
    await client.deleteSecretVersion('tls.client_pem', 1);
    const writes = sdk.spans().filter((s) => s.attributes['vane.operation'] === 'secret-write');
    expect(writes.map((s) => [s.name, s.attributes['url.full']])).toEqual([
      ['PUT /v1/secrets/{key}', `http://shop.localhost:${port}/v1/secrets/REDACTED`],
      ['DELETE /v1/secrets/{key}/versions/{version}', `http://shop.localhost:${port}/v1/secrets/REDACTED/versions/1`],
    ]);
  });

  it("background work is never part of the app's trace: a poll after a client.sync() in a request is a root span", async () => {
    const client = await start({ stream: false, ttlMs: 60_000 });
    const { span } = await sdk.inSpan('POST /refresh', () => client.sync());
    const foreground = sdk
      .spans()
      .filter((s) => s.name === 'GET /v1/sync')
      .at(-1)!;
    expect(foreground.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    const before = sdk.spans().length;
    await timers.advance(60_000);
    await until(() => sdk.spans().length > before, 'the poll', { timeoutMs: WAIT_MS });
    const poll = sdk.spans().at(-1)!;
    expect(poll.name).toBe('GET /v1/sync');
    expect(poll.parentSpanContext).toBeUndefined();
  });

  it('the token exchange of workload identity, with no token in it', async () => {
    const dir = tempDir();
    try {
      const k8s = await jwtPlatform('https://kubernetes.default.svc.cluster.local', 'k8s-1');
      const withTrust = seed();
      withTrust.services!['shop']!.trusts = {
        cluster: jwtTrust('kubernetes', k8s, 'vane', 'system:serviceaccount:shop:api'),
      };
      await proxy.close();
      await server.close();
      await startServer(withTrust);
      const token = await k8s.sign({ aud: 'vane', sub: 'system:serviceaccount:shop:api', nowMs: Date.now() });
      issued.push(token);
      const client = await start({
        apiKey: undefined,
        stream: false,
        timers: undefined,
        clock: undefined,
        workloadIdentity: {
          provider: 'kubernetes',
          audience: 'vane-shop',
          kubernetesTokenPath: dir.file('token', token),
          env: {},
        },
      });
      expect(client.keyType).toBe('');
      expect(sdk.spans().find((s) => s.name === 'POST /v1/auth/token-exchange')).toMatchObject({
        attributes: { 'vane.operation': 'token-exchange', 'http.response.status_code': 200 },
      });
    } finally {
      dir.remove();
    }
  });
});

describe('extension point', () => {
  it("another feature's metrics get the meter and the slug, and stop when the client closes", async () => {
    const client = await start({ stream: false });
    const stopped = jest.fn();
    (client.telemetry as ClientTelemetry).extend({
      start({ meter, attributes }) {
        meter.createCounter('vane.client.test_extension.calls', { unit: '{call}' }).add(2, attributes());
        return stopped;
      },
    });
    expect(await sdk.value('vane.client.test_extension.calls')).toEqual({ attributes: SLUG, value: 2 });
    const ageBefore = (await sdk.value(M.snapshotAge.name))?.value;
    await client.close();
    expect(stopped).toHaveBeenCalledTimes(1);
    // A closed client is observed no more: its last points stay as the SDK last saw them.
    await timers.advance(10_000);
    expect((await sdk.value(M.snapshotAge.name))?.value).toBe(ageBefore);
  });
});

describe('off', () => {
  it('telemetry: false records nothing and leaves the transport as it is', async () => {
    const client = await start({ telemetry: false });
    await until(() => client.connected, 'stream connected', { timeoutMs: WAIT_MS });
    await sdk.inSpan('GET /x', () => client.evaluateAb(['always-on'], { userId: 'u' }));
    expect(client.telemetry.active).toBe(false);
    expect((await sdk.collect()).filter((m) => m.descriptor.name.startsWith('vane.'))).toEqual([]);
    expect(sdk.spans().map((s) => s.name)).toEqual(['GET /x']);
  });
});
