import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { z } from 'zod';
import {
  ApiKeyCredentials,
  FileBackupStore,
  VaneClient,
  type ChangeEvent,
  type VaneClientOptions,
  type VaneClientStatus,
} from '../src/index.js';
import { SecretsNotAvailableError } from '../src/errors.js';
import { systemTimers, type TimerHandle, type Timers } from '../src/util/timers.js';
import { MemoryLogger } from './helpers/fake-transport.js';

import { SHOP_SK, TLS_PEM, seed } from './helpers/seed.js';
import { until, waitForStatus } from '@vane/server/testing';
import { FaultProxy, rawResponse } from '@vane/test-harness';

const SECRET = 'rk_test_TOPSECRET';

let dir: string;
let server: VaneServer;
let proxy: FaultProxy;
let logger: MemoryLogger;
let store: FileBackupStore;
const open: VaneClient[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vane-lkg-e2e-'));
  server = await startVaneServer({ seed: seed(), port: 0, statePath: join(dir, 'state.json') });
  proxy = await FaultProxy.start(server.port);
  logger = new MemoryLogger();
  store = new FileBackupStore({ directory: join(dir, 'backups') });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await proxy.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function backupFile(): string {
  return store.pathFor(proxy.baseUrl('shop'));
}

async function savedRevision(): Promise<number | undefined> {
  const text = await store.read(proxy.baseUrl('shop'));
  return text === null ? undefined : (JSON.parse(text) as { snapshot: { revision: number } }).snapshot.revision;
}

function options(extra: Partial<VaneClientOptions> = {}): VaneClientOptions {
  return {
    baseUrl: proxy.baseUrl('shop'),
    apiKey: SHOP_SK,
    logger,
    backoffMinMs: 20,
    backoffMaxMs: 40,
    lastKnownGood: { store, initTimeoutMs: 2000 },
    ...extra,
  };
}

async function create(extra: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  const client = await VaneClient.create(options(extra));
  open.push(client);
  return client;
}

/** A fresh client saves the backup, then closes (close waits for the save). */
async function prime(extra: Partial<VaneClientOptions> = {}): Promise<number> {
  const client = await VaneClient.create(options(extra));
  await client.close();
  const revision = await savedRevision();
  expect(revision).toBe(server.revision('shop'));
  return revision!;
}

const SYNC = (line: string): boolean => line.startsWith('GET /v1/sync');

describe('last-known-good: saving', () => {
  it('saves after the first sync and after every patch, once per revision, off the read path', async () => {
    const client = await create();
    await until(async () => (await savedRevision()) === client.revision, 'the first save');
    expect((await stat(backupFile())).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'backups'))).mode & 0o777).toBe(0o700);
    await waitForStatus(client, (s) => s.connected, { what: 'stream connected' });
    const writes = jest.spyOn(store, 'write');
    const changed = new Promise<ChangeEvent>((resolve) => client.onChange(resolve));
    server.admin.setConfig('shop', 'db.host', 'db-2.internal');
    await changed;
    await until(async () => (await savedRevision()) === client.revision, 'the patch saved');
    await client.sync(); // a 304: the same revision, not written again
    await client.sync();
    expect(writes).toHaveBeenCalledTimes(1);
  });

  it('the backup holds no plaintext secret and no key', async () => {
    await prime();
    const text = await readFile(backupFile(), 'utf8');
    for (const forbidden of [SECRET, 'TOPSECRET-PEM', SHOP_SK, SHOP_SK.slice(4)]) expect(text).not.toContain(forbidden);
    expect(text).toContain('db.internal');
  });

  it('without the option nothing is saved and an outage fails the start (the default is unchanged)', async () => {
    const client = await create({ lastKnownGood: undefined });
    await client.close();
    expect(await savedRevision()).toBeUndefined();
    proxy.onRequest(() => 'reset');
    await expect(VaneClient.create(options({ lastKnownGood: undefined }))).rejects.toMatchObject({
      code: 'VANE_TRANSPORT',
    });
  });
});

describe('last-known-good: which start failures use the backup', () => {
  it.each<[string, () => void, string, string]>([
    ['connection reset (transport)', () => proxy.onRequest(() => 'reset'), 'transport', 'VANE_TRANSPORT'],
    [
      '503',
      () =>
        proxy.onRequest((l) => (SYNC(l) ? rawResponse(503, '{"error":"unavailable","message":"down"}') : undefined)),
      'server-error',
      'VANE_UNEXPECTED_RESPONSE',
    ],
    [
      '429',
      () =>
        proxy.onRequest((l) =>
          SYNC(l) ? rawResponse(429, '{"error":"rate_limited","message":"slow"}', { 'retry-after': '1' }) : undefined,
        ),
      'rate-limited',
      'VANE_RATE_LIMITED',
    ],
    [
      '429 quarantined',
      () => void server.admin.setTenant({ quarantined_until: '2099-01-01T00:00:00Z' }),
      'quarantined',
      'VANE_QUARANTINED',
    ],
    [
      '402 billing overdue',
      () => void server.admin.setTenant({ overdue_days: 30 }),
      'billing-overdue',
      'VANE_BILLING_OVERDUE',
    ],
  ])('%s: starts stale from the backup', async (_name, fault, reason, code) => {
    const revision = await prime();
    fault();
    const client = await create();
    expect(client.stale).toMatchObject({ reason, revision, secretsAvailable: true });
    expect(client.stale?.error).toMatchObject({ code });
    expect(client.status.stale).toBe(client.stale);
    expect(client.config('db.host')).toBe('db.internal');
    // Flags read from the backup through the same derived map as after a sync (a kill switch that is
    // off in the backup reads off even when called with default `true`).
    expect(client.flag('new-checkout')).toBe(true);
    expect(client.flagState('new-checkout')).toEqual({ defined: true, active: true });
    expect(client.flag('dark-mode', true)).toBe(false);
    expect(client.flag('never-defined', true)).toBe(true);
    expect(client.secret('stripe.api_key')).toBe(SECRET);
    expect(await readFile(client.requireSecretFile('tls.client_pem'), 'utf8')).toBe(TLS_PEM);
    expect(logger.text('warn')).toMatch(
      /starting STALE from the last-known-good backup in file .*\(revision \d+, saved \d+ s ago\)/,
    );
    if (reason === 'billing-overdue') expect(client.status).toMatchObject({ mode: 'halted', billingOverdue: true });
  });

  it('a sync running past initTimeoutMs: stale at the timeout, fresh when the answer comes', async () => {
    await prime();
    server.admin.setConfig('shop', 'db.host', 'db-2.internal');
    proxy.stall(true);
    const client = await create({ lastKnownGood: { store, initTimeoutMs: 100 } });
    expect(client.stale).toMatchObject({ reason: 'timeout' });
    expect(client.config('db.host')).toBe('db.internal');
    const fresh = new Promise<VaneClientStatus>((resolve) =>
      client.onStatusChange((s) => s.stale === undefined && resolve(s)),
    );
    proxy.stall(false);
    await fresh;
    expect(client.config('db.host')).toBe('db-2.internal');
  });

  it.each<[string, () => void, string]>([
    [
      '401 (a revoked key)',
      () =>
        proxy.onRequest((l) =>
          SYNC(l) ? rawResponse(401, '{"error":"unauthorized","message":"revoked"}') : undefined,
        ),
      'VANE_UNAUTHORIZED',
    ],
    [
      '404 (a wrong slug)',
      () =>
        proxy.onRequest((l) =>
          SYNC(l) ? rawResponse(404, '{"error":"not_found","message":"no such service"}') : undefined,
        ),
      'VANE_NOT_FOUND',
    ],
  ])('%s fails the start even with a good backup', async (_name, fault, code) => {
    await prime();
    fault();
    const read = jest.spyOn(store, 'read');
    await expect(VaneClient.create(options())).rejects.toMatchObject({ code });
    expect(read).not.toHaveBeenCalled();
  });

  it('a key really revoked on the server fails the start with 401', async () => {
    const key = server.admin.createKey('shop', 'secret');
    await prime({ apiKey: key });
    server.admin.revokeKey('shop', key);
    await expect(VaneClient.create(options({ apiKey: key }))).rejects.toMatchObject({ code: 'VANE_UNAUTHORIZED' });
  });
});

describe('last-known-good: bad backups are never served', () => {
  const down = (): void => proxy.onRequest(() => 'reset');

  it.each<[string, (text: string) => string | Promise<string>, RegExp]>([
    ['tampered (a config changed)', (t) => t.replace('db.internal', 'evil.example'), /authentication failed/],
    ['truncated', (t) => t.slice(0, Math.floor(t.length * 0.6)), /not valid JSON \(\d+ characters; truncated\?\)/],
    ['unparseable', () => '{ not json', /not valid JSON/],
    [
      'another service’s backup',
      async () => {
        const web = new FileBackupStore({ directory: join(dir, 'web') });
        const client = await VaneClient.create({
          baseUrl: proxy.baseUrl('web'),
          apiKey: 'svs_web_e2e_secret_key_0000001',
          logger,
          lastKnownGood: { store: web },
        });
        await client.close();
        return (await web.read(proxy.baseUrl('web')))!;
      },
      /belongs to another service/,
    ],
    [
      'a config nested 100,000 deep (used to reject create() with a bare RangeError)',
      (t) => {
        const doc = JSON.parse(t) as { snapshot: { configs: Record<string, unknown> } };
        doc.snapshot.configs['deep.value'] = '@DEEP@';
        return JSON.stringify(doc).replace('"@DEEP@"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
      },
      /malformed: "snapshot" nests deeper than/,
    ],
  ])(
    '%s: ignored with a warning naming the file; the start fails with the service’s error',
    async (_name, spoil, why) => {
      await prime();
      await writeFile(backupFile(), await spoil(await readFile(backupFile(), 'utf8')));
      down();
      await expect(VaneClient.create(options())).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
      const warning = logger.text('warn');
      expect(warning).toContain(`ignoring the backup in file ${backupFile()}`);
      expect(warning).toMatch(why);
      expect(warning).not.toContain('evil.example');
    },
  );

  it('older than maxAgeMs: ignored', async () => {
    await prime();
    down();
    const later = { now: () => Date.now() + 2 * 3600_000 };
    await expect(
      VaneClient.create(options({ clock: later, lastKnownGood: { store, maxAgeMs: 3600_000 } })),
    ).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(logger.text('warn')).toMatch(
      /expired: revision \d+ was saved \d+ ms ago, more than maxAgeMs \(3600000 ms\)/,
    );
  });

  it('one that breaks the app’s schema: ignored with a warning naming the keys; the start fails with the service’s error', async () => {
    await prime();
    down();
    // The schema was tightened since the backup was saved: db.pool.max is 20 in it.
    const schema = { configs: { 'db.pool.max': z.number().max(10) } };
    await expect(VaneClient.create(options({ schema }))).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(logger.text('warn')).toContain(
      `ignoring the backup in file ${backupFile()}: it does not satisfy the schema (db.pool.max)`,
    );
  });

  it('none at all: the service’s error, and a warning saying there is none', async () => {
    down();
    await expect(VaneClient.create(options())).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(logger.text('warn')).toContain(`no backup in file ${backupFile()}`);
  });
});

describe('last-known-good: secrets at rest', () => {
  it('with an explicit encryptionKey, another instance with the same key opens it; with another key, no', async () => {
    const encryptionKey = 'an-explicit-32-byte-fleet-key-0000000001';
    await prime({ lastKnownGood: { store, encryptionKey } });
    expect(await readFile(backupFile(), 'utf8')).not.toContain(encryptionKey);
    proxy.onRequest(() => 'reset');
    const same = await create({ lastKnownGood: { store, encryptionKey } });
    expect(same.secret('stripe.api_key')).toBe(SECRET);
    await expect(
      VaneClient.create(options({ lastKnownGood: { store, encryptionKey: `${encryptionKey}-other` } })),
    ).rejects.toMatchObject({ code: 'VANE_TRANSPORT' });
    expect(logger.text('warn')).toMatch(/sealed with another key/);
  });

  it('without a static key (workload identity, custom credentials) and no encryptionKey: secrets left out, reads say "not available yet" until the first sync', async () => {
    const credentials = (): ApiKeyCredentials => new ApiKeyCredentials(SHOP_SK);
    await prime({ apiKey: undefined, credentials: credentials() });
    const text = await readFile(backupFile(), 'utf8');
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toMatchObject({ secrets: 'omitted', seal: null });
    proxy.onRequest(() => 'reset');
    const client = await create({ apiKey: undefined, credentials: credentials() });
    expect(client.stale?.secretsAvailable).toBe(false);
    expect(client.config('db.host')).toBe('db.internal');
    expect(() => client.secret('stripe.api_key')).toThrow(SecretsNotAvailableError);
    expect(() => client.secretFile('tls.client_pem')).toThrow(SecretsNotAvailableError);
    expect(() => client.secretInfo('stripe.api_key')).toThrow(/not available yet/);
    proxy.onRequest(undefined);
    await waitForStatus(client, (s) => s.stale === undefined, { what: 'fresh again' });
    expect(client.secret('stripe.api_key')).toBe(SECRET);
  });
});

describe('last-known-good: back to fresh', () => {
  it('the service stopped, then restarted: stale from the backup, then the fresh snapshot with its change events and one log line', async () => {
    const port = server.port;
    await prime();
    server.admin.setConfig('shop', 'db.host', 'db-2.internal');
    server.admin.setFlag('shop', 'dark-mode', { is_enabled: true });
    await server.close();
    // The proxy stays up in front of the stopped server: connections to it are dropped.
    const client = await create();
    expect(client.stale?.reason).toBe('transport');
    expect(client.config('db.host')).toBe('db.internal');
    expect(client.flag('dark-mode')).toBe(false);
    const events: ChangeEvent[] = [];
    client.onChange((e) => events.push(e));
    const statuses: VaneClientStatus[] = [];
    client.onStatusChange((s) => statuses.push(s));
    expect(logger.text('warn').match(/starting STALE/g)).toHaveLength(1);
    server = await startVaneServer({ seed: seed(), port, statePath: join(dir, 'state.json') });
    await waitForStatus(client, (s) => s.stale === undefined, { what: 'fresh again', timeoutMs: 5000 });
    expect(client.config('db.host')).toBe('db-2.internal');
    expect(client.flag('dark-mode')).toBe(true);
    expect(events.map((e) => `${e.kind}:${e.key}`).sort()).toEqual(['config:db.host', 'flag:dark-mode']);
    expect(statuses.at(-1)).not.toHaveProperty('stale');
    expect(logger.lines.filter((l) => /fresh again/.test(l.message))).toHaveLength(1);
    await until(async () => (await savedRevision()) === client.revision, 'the fresh snapshot saved');
  });

  it('close() while stale leaves no socket and no timer behind', async () => {
    await prime();
    proxy.onRequest(() => 'reset');
    const sockets = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const before = sockets();
    // Node's timers, counted: every one the client sets is fired or cleared by the end of close().
    const live = new Set<TimerHandle>();
    const timers: Timers = {
      setTimeout(callback, delayMs) {
        const handle = systemTimers.setTimeout(() => {
          live.delete(handle);
          callback();
        }, delayMs);
        live.add(handle);
        return handle;
      },
      clearTimeout(handle) {
        live.delete(handle);
        systemTimers.clearTimeout(handle);
      },
    };
    const syncs = proxy.count('/v1/sync');
    const client = await VaneClient.create(options({ timers }));
    expect(client.stale).not.toBeNull();
    await until(() => proxy.count('/v1/sync') >= syncs + 3, 'two retries after the start');
    await client.close();
    expect(live.size).toBe(0);
    await until(() => sockets() <= before, `sockets back to ${before} (now ${sockets()})`);
  });
});
