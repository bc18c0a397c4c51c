import { startVaneServer, type VaneServer } from '@vane/server';
import { adminRequest, waitForEvent } from '@vane/server/testing';
import { z } from 'zod';
import {
  defineSchema,
  VaneClient,
  type ChangeEvent,
  type InvalidConfig,
  type VaneClientOptions,
} from '../../src/index.js';
import { ConfigInvalidError, InvalidArgumentError } from '../../src/errors.js';
import { MemoryLogger } from '../helpers/fake-transport.js';
import { SHOP_SK, seed } from '../helpers/seed.js';
import { schema } from './app-schema.js';

let server: VaneServer;
let logger: MemoryLogger;
const clients: VaneClient[] = [];

beforeEach(async () => {
  const s = seed();
  // The README's schema needs these two keys; the rest of the seed is as the other suites have it.
  s.services!.shop!.configs = { ...s.services!.shop!.configs, 'api.url': 'https://api.example/' };
  server = await startVaneServer({ seed: s, port: 0 });
  logger = new MemoryLogger();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

async function connect(options: Partial<VaneClientOptions> = {}): Promise<VaneClient> {
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('shop'),
    apiKey: SHOP_SK,
    logger,
    schema,
    ...options,
  });
  clients.push(client);
  return client;
}

/** A write through the admin API over HTTP; resolves with the service's new revision. */
async function admin(method: 'PUT' | 'DELETE', path: string, body?: unknown): Promise<number> {
  return (await adminRequest(server, method, path, body)).revision!;
}

describe('a schema against the local server', () => {
  it('serves the validators’ outputs: coercion and defaults', async () => {
    await admin('PUT', 'services/shop/configs/db.pool.max', { value: '20' });
    const client = await connect({ stream: false });
    expect(client.config('db.pool.max')).toBe(20);
    expect(client.config('http.timeout_ms')).toBe(5000);
    expect(client.config('api.url')).toBe('https://api.example/');
    expect(client.configs().get('db.pool.max')).toBe(20);
    expect(client.invalidConfigs.size).toBe(0);
    // Keys outside the schema are served as the service sends them.
    expect(client.configs().get('db.host')).toBe('db.internal');
  });

  it('an invalid push keeps the last valid value, emits onInvalid, warns once; a valid one goes live', async () => {
    const client = await connect();
    const invalid = waitForEvent<InvalidConfig>((cb) => client.onInvalid(cb));
    const revision = await admin('PUT', 'services/shop/configs/db.pool.max', { value: -1 });
    const entry = await invalid;
    expect(entry).toMatchObject({ key: 'db.pool.max', revision, keptLastValid: true });
    expect(entry.issues.join(' ')).toMatch(/>=\s*1|too small|greater/i);
    expect(client.revision).toBe(revision);
    expect(client.config('db.pool.max')).toBe(20);
    expect(client.invalidConfigs.get('db.pool.max')).toEqual(entry);
    expect(logger.lines.filter((l) => l.level === 'warn' && l.message.includes('"db.pool.max"'))).toHaveLength(1);

    const change = waitForEvent<ChangeEvent>(
      (cb) => client.onChange(cb),
      (e) => e.key === 'db.pool.max',
    );
    await admin('PUT', 'services/shop/configs/db.pool.max', { value: '30' });
    expect(await change).toMatchObject({ kind: 'config', oldValue: 20, newValue: 30 });
    expect(client.config('db.pool.max')).toBe(30);
    expect(client.invalidConfigs.size).toBe(0);
  });

  it('one sync carrying a bad and a good value applies the good one and keeps the bad key’s last value', async () => {
    const client = await connect({ stream: false });
    await admin('PUT', 'services/shop/configs/db.pool.max', { value: 'abc' });
    await admin('PUT', 'services/shop/configs/pricing.discount', { value: 0.25 });
    const events: ChangeEvent[] = [];
    client.onChange((e) => events.push(e));
    await client.sync();
    expect(client.config('pricing.discount')).toBe(0.25);
    expect(client.config('db.pool.max')).toBe(20);
    expect(events.map((e) => e.key)).toEqual(['pricing.discount']);
    expect([...client.invalidConfigs.keys()]).toEqual(['db.pool.max']);
  });

  it('a deleted required key keeps its last valid value', async () => {
    const client = await connect({ stream: false });
    await admin('DELETE', 'services/shop/configs/pricing.discount');
    await client.sync();
    expect(client.config('pricing.discount')).toBe(0.15);
    expect(client.invalidConfigs.get('pricing.discount')?.issues[0]).toBe('missing (required)');
  });

  it('fails the start on a missing or invalid required key, listing each, and leaves nothing open', async () => {
    await admin('DELETE', 'services/shop/configs/api.url');
    await admin('PUT', 'services/shop/configs/pricing.discount', { value: 7 });
    const started = VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      apiKey: SHOP_SK,
      logger,
      schema: defineSchema({
        configs: { 'api.url': z.url(), 'pricing.discount': z.number().max(1), 'db.host': z.string() },
      }),
    });
    await expect(started).rejects.toBeInstanceOf(ConfigInvalidError);
    const error = (await started.catch((e: unknown) => e)) as ConfigInvalidError;
    expect(error.code).toBe('VANE_CONFIG_INVALID');
    expect(error.invalid.map((i) => i.key).sort()).toEqual(['api.url', 'pricing.discount']);
    expect(error.message).toMatch(/"api\.url" \(missing \(required\)/);
  });

  it('an optional key may be missing at start', async () => {
    await admin('DELETE', 'services/shop/configs/api.url');
    const client = await connect({
      schema: defineSchema({ configs: { 'api.url': z.url().optional() } }),
      stream: false,
    });
    expect(client.configLookup('api.url')).toEqual({ found: false, value: undefined });
  });

  it('refuses an asynchronous validator at start', async () => {
    const started = VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      apiKey: SHOP_SK,
      logger,
      schema: { configs: { 'db.host': z.string().refine(async () => true) } },
    });
    await expect(started).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(started).rejects.toThrow(/validates asynchronously/);
  });

  it('refuses a schema entry that is not a validator before any request', async () => {
    await expect(
      VaneClient.create({
        baseUrl: server.baseUrl('shop'),
        apiKey: SHOP_SK,
        logger,
        schema: { configs: { 'db.host': 'string' as never } },
      }),
    ).rejects.toThrow(/schema\.configs\["db\.host"\] is not a Standard Schema validator/);
  });
});
