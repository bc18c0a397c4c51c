// One revision per request under load (#21): its own file, in the slow suite (`npm run test:slow`).
import { Controller, Get, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { VaneClient } from '@vane/client';
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

describe('one revision per request under load (Nest on Express)', () => {
  it('10,000 requests while the values change every millisecond: each reads one revision; heap flat; no old version file left', async () => {
    const server = await startChurnServer(nestSeed(), 'shop');
    const module = await Test.createTestingModule({
      imports: [VaneModule.forRoot({ baseUrl: server.baseUrl, apiKey: server.secretKey, startupCheck: 'off' })],
      controllers: [PairController],
      providers: [PairReads],
    }).compile();
    const app = module.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const client = app.get(VaneClient);
    try {
      const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/pair`;
      // Warm-up (JIT, pools, the first version files), then the heap at a quiet point.
      expect(await loadWhileChanging(server, url, client, 1_000)).toMatchObject({ ok: 1_000, failed: 0 });
      const before = heapUsedAfterGc();
      const report = await loadWhileChanging(server, url, client, 10_000);
      const after = heapUsedAfterGc();
      await expectOneRevisionPerRequest('Nest', client, report, app.get(PairController).inconsistent, {
        before,
        after,
      });
    } finally {
      await app.close();
      await server.close();
    }
  }, 600_000);
});
