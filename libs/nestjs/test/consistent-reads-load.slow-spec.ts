// One revision per request under load (#21): its own file, in the slow suite (`npm run test:slow`).
import { Controller, Get, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { VaneClient } from '@vane/client';
import type { VaneServerSeed } from '@vane/server';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import {
  expectOneRevisionPerRequest,
  heapUsedAfterGc,
  loadWhileChanging,
  startChurnServer,
} from '../../../test/support/churn.js';
import { FeatureFlag, VaneModule } from '../src/index.js';
import { nestSeed } from './support/seed.js';

@Injectable()
class PairReads {
  constructor(private readonly vane: VaneClient) {}

  /** Two configs and a file secret that the load test moves together. */
  read(): string {
    const pem = readFileSync(this.vane.requireSecretFile('tls.client_pem'), 'utf8');
    return `${this.vane.config('db.pool.max')} ${this.vane.config('db.host')} ${pem}`;
  }
}

@Controller()
class PairController {
  inconsistent = 0;

  constructor(private readonly reads: PairReads) {}

  @FeatureFlag('new-checkout')
  @Get('pair')
  async pair(): Promise<string> {
    const first = this.reads.read();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.reads.read() !== first) this.inconsistent++;
    return 'ok';
  }
}

/** The two configs only: what a service without file secrets reads (provided as {@link PairReads}). */
@Injectable()
class ConfigReads {
  constructor(private readonly vane: VaneClient) {}

  read(): string {
    return `${this.vane.config('db.pool.max')} ${this.vane.config('db.host')}`;
  }
}

/** `nestSeed()` without its file secret: the requests of a revision share it, uncounted. */
function seedWithoutFileSecrets(): VaneServerSeed {
  const seed = nestSeed();
  const shop = seed.services!['shop']!;
  const secrets = { ...shop.secrets };
  delete secrets['tls.client_pem'];
  return { ...seed, services: { ...seed.services, shop: { ...shop, secrets } } };
}

/**
 * Serves GET /pair (its `inconsistent` counts requests that read two
 * revisions), reading through `reads`, on a churning server of `seed`, and
 * checks what 10,000 requests leave (after 1,000 to warm up: JIT, pools, the
 * first version files).
 */
async function expectOneRevisionUnderLoad(
  seed: VaneServerSeed,
  fileSecret: boolean,
  reads: typeof PairReads | typeof ConfigReads,
): Promise<void> {
  const server = await startChurnServer(seed, 'shop', { fileSecret });
  const module = await Test.createTestingModule({
    imports: [VaneModule.forRoot({ baseUrl: server.baseUrl, apiKey: server.secretKey, startupCheck: 'off' })],
    controllers: [PairController],
    providers: [{ provide: PairReads, useClass: reads }],
  }).compile();
  const app = module.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  const client = app.get(VaneClient);
  try {
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/pair`;
    expect(await loadWhileChanging(server, url, client, 1_000)).toMatchObject({ ok: 1_000, failed: 0 });
    const before = heapUsedAfterGc();
    const report = await loadWhileChanging(server, url, client, 10_000);
    const after = heapUsedAfterGc();
    const { inconsistent } = app.get(PairController);
    await expectOneRevisionPerRequest(
      fileSecret ? 'Nest' : 'Nest, no file secrets',
      client,
      report,
      inconsistent,
      { before, after },
      { fileSecret },
    );
  } finally {
    await app.close();
    await server.close();
  }
}

describe('one revision per request under load (Nest on Express)', () => {
  it('10,000 requests while the values change every millisecond: each reads one revision; heap flat; no old version file left', async () => {
    await expectOneRevisionUnderLoad(nestSeed(), true, PairReads);
  }, 600_000);

  it('without file secrets (revisions shared by their requests, uncounted): each request reads one revision; heap flat; nothing held once collected', async () => {
    await expectOneRevisionUnderLoad(seedWithoutFileSecrets(), false, ConfigReads);
  }, 600_000);
});
