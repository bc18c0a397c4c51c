// One revision per request under load (#21): its own file, in the slow suite (`npm run test:slow`).
import { Controller, Get, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { VaneClient } from '@vane/client';
import { until } from '@vane/local-server/testing';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';
import { heapUsedAfterGc, loadWhileChanging, startChurnServer } from '../../../test/support/churn.js';
import { FeatureFlag, VaneModule } from '../src/index.js';
import { nestSeed } from './support/seed.js';

/** Heap growth allowed over 10,000 requests once warm: far below what keeping a revision or a request each would cost. */
const HEAP_GROWTH_LIMIT = 4 * 1024 * 1024;

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
      expect(report).toMatchObject({ ok: 10_000, failed: 0, failures: [] });
      // The values really moved under the requests: hundreds of rounds of three changes.
      expect(report.rounds).toBeGreaterThan(100);
      expect(app.get(PairController).inconsistent).toBe(0);
      expect(after - before).toBeLessThan(HEAP_GROWTH_LIMIT);
      // Every response closed: no old revision is held, one file version (the live one) is on disk.
      expect(client.pinStats).toEqual({ heldRevisions: 0, fileVersions: 1 });
      const stable = client.requireSecretFile('tls.client_pem');
      const live = [basename(stable), `${basename(stable)}.v${client.secretInfo('tls.client_pem')!.version}`].sort();
      await until(() => readdirSync(dirname(stable)).length === live.length, 'the old version files to be removed', {
        timeoutMs: 10_000,
      });
      expect(readdirSync(dirname(stable)).sort()).toEqual(live);
      console.log(
        `Nest: ${report.rounds} rounds of changes during 10,000 requests; heap ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB`,
      );
    } finally {
      await app.close();
      await server.close();
    }
  }, 240_000);
});
