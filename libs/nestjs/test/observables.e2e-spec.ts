import type { INestApplication } from '@nestjs/common';
import { VaneClient, type ConfigValue } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { firstValueFrom, Subscription, take, toArray, filter, timeout } from 'rxjs';
import { VaneModule, VaneObservables } from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { waitForChange } from '@vane/server/testing';

describe('VaneObservables', () => {
  let server: VaneServer;
  let app: INestApplication;
  let live: VaneObservables;
  let client: VaneClient;
  const subscriptions = new Subscription();

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    app = await createApp({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret })],
    });
    live = app.get(VaneObservables);
    client = app.get(VaneClient);
  });
  afterAll(async () => {
    subscriptions.unsubscribe();
    await app.close();
    await server.close();
  });

  it('config$ emits the current value at once, then the new value after a change', async () => {
    const seen: (ConfigValue | undefined)[] = [];
    subscriptions.add(live.config$('db.pool.max', 1).subscribe((v) => seen.push(v)));
    expect(seen).toEqual([10]);
    const next = firstValueFrom(
      live.config$<number>('db.pool.max').pipe(
        filter((v) => v === 30),
        timeout(5000),
      ),
    );
    server.admin.setConfig('shop', 'db.pool.max', 30);
    await expect(next).resolves.toBe(30);
    expect(seen).toEqual([10, 30]);
  });

  it('config$ does not repeat equal values (arrays compared by value) and emits the default on deletion', async () => {
    const seen: (ConfigValue | undefined)[] = [];
    subscriptions.add(live.config$('cors.origins', []).subscribe((v) => seen.push(v)));
    // Another key changes: no emission; the same array again: no emission.
    let change = waitForChange(client, (e) => e.key === 'db.host');
    server.admin.setConfig('shop', 'db.host', 'db2.internal');
    await change;
    change = waitForChange(client, (e) => e.key === 'cors.origins');
    server.admin.setConfig('shop', 'cors.origins', ['https://a.example', 'https://b.example']);
    await change;
    server.admin.setConfig('shop', 'cors.origins', ['https://a.example', 'https://b.example']);
    change = waitForChange(client, (e) => e.key === 'cors.origins');
    server.admin.deleteConfig('shop', 'cors.origins');
    await change;
    expect(seen).toEqual([['https://a.example'], ['https://a.example', 'https://b.example'], []]);
  });

  it('configs$ emits the whole map now and once per change', async () => {
    const maps = firstValueFrom(live.configs$().pipe(take(2), toArray(), timeout(5000)));
    server.admin.setConfig('shop', 'feature.x', 'on');
    const [before, after] = await maps;
    expect(before!.has('feature.x')).toBe(false);
    expect(after!.get('feature.x')).toBe('on');
  });

  it('flag$ emits the state now and on every change', async () => {
    const states = firstValueFrom(live.flag$('beta').pipe(take(3), toArray(), timeout(5000)));
    server.admin.setFlag('shop', 'beta', { is_enabled: true });
    server.admin.deleteFlag('shop', 'beta');
    expect(await states).toEqual([
      { defined: true, active: false },
      { defined: true, active: true },
      { defined: false, active: false },
    ]);
  });

  it('connected$ reports the stream state', async () => {
    await expect(firstValueFrom(live.connected$().pipe(filter(Boolean), timeout(5000)))).resolves.toBe(true);
    await expect(firstValueFrom(live.billingOverdue$().pipe(timeout(5000)))).resolves.toBe(false);
  });

  it('changes$ carries the typed events, secrets without values', async () => {
    const event = firstValueFrom(
      live.changes$.pipe(
        filter((e) => e.kind === 'secret'),
        timeout(5000),
      ),
    );
    server.admin.setSecret('shop', 'stripe.api_key', 'rk_test_rotated');
    const e = await event;
    expect(e).toMatchObject({ kind: 'secret', key: 'stripe.api_key', newValue: { type: 'text', version: 2 } });
    expect(JSON.stringify(e)).not.toContain('rk_test_rotated');
  });

  it('every observable completes when the app closes', async () => {
    const app2 = await createApp({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret })],
    });
    const done = firstValueFrom(app2.get(VaneObservables).connected$().pipe(toArray(), timeout(5000)));
    const config = firstValueFrom(app2.get(VaneObservables).config$('db.host').pipe(toArray(), timeout(5000)));
    await app2.close();
    await expect(done).resolves.toEqual(expect.any(Array));
    await expect(config).resolves.toHaveLength(1);
  });
});
