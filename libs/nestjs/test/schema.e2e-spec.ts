import type { INestApplication } from '@nestjs/common';
import { VaneClient, type InvalidConfig } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { firstValueFrom, filter, timeout, type Observable } from 'rxjs';
import { z } from 'zod';
import { VaneHealthIndicator, VaneModule, VaneObservables } from '../src/index.js';
import { createApp } from './support/app.js';
import { KEYS, nestSeed } from './support/seed.js';
import { adminPut } from '@vane/server/testing';

/** The first value of `source` that matches, bounded in time. */
function first<T>(source: Observable<T>, match: (v: T) => boolean = () => true): Promise<T> {
  return firstValueFrom(source.pipe(filter(match), timeout(5000)));
}

describe('VaneModule with a schema', () => {
  let server: VaneServer;
  let app: INestApplication;

  beforeEach(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterEach(async () => {
    await app?.close();
    await server.close();
  });

  async function start(): Promise<void> {
    app = await createApp({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          schema: { configs: { 'db.pool.max': z.coerce.number().int().min(1) } },
        }),
      ],
    });
  }

  it('config$ emits outputs; an invalid push reaches invalid$ and the health details, and keeps the last value', async () => {
    await start();
    const live = app.get(VaneObservables);
    const health = app.get(VaneHealthIndicator);
    const seen: unknown[] = [];
    const sub = live.config$('db.pool.max').subscribe((v) => seen.push(v));

    const coerced = first(live.config$('db.pool.max'), (v) => v === 25);
    await adminPut(server, 'services/shop/configs/db.pool.max', { value: '25' });
    await expect(coerced).resolves.toBe(25);

    const invalid: Promise<InvalidConfig> = first(live.invalid$);
    await adminPut(server, 'services/shop/configs/db.pool.max', { value: -1 });
    await expect(invalid).resolves.toMatchObject({ key: 'db.pool.max', keptLastValid: true });
    expect(app.get(VaneClient).config('db.pool.max')).toBe(25);
    expect(seen).toEqual([10, 25]);
    const details = health.details();
    expect(details.reason).toBeUndefined();
    expect(details.invalidConfigs).toEqual([{ key: 'db.pool.max', issues: [expect.any(String)] }]);
    sub.unsubscribe();
  });

  it('a missing required key fails the start with VANE_CONFIG_INVALID', async () => {
    const failed = createApp({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          schema: { configs: { 'payments.url': z.url() } },
        }),
      ],
    });
    await expect(failed).rejects.toMatchObject({ code: 'VANE_CONFIG_INVALID' });
  });
});
