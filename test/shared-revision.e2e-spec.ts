/**
 * One revision per request on a service without file secrets, in every
 * adapter. There the requests of a revision share one uncounted view of
 * it (`VaneClient.callView()`, `held: false`) and nothing waits on their
 * end; they must still read the revision of their start whatever lands
 * meanwhile, and the next request the new one. (The adapters' own suites
 * run the counted path: their seeds have a file secret.)
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import { Controller, Get, Injectable, type INestApplication } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { VaneClient } from '@vane/client';
import { pinStatsOf } from '@vane/client/adapter';
import { createVane, type VaneExpress } from '@vane/express';
import vanePlugin from '@vane/fastify';
import { startVaneServer, type VaneServer, type VaneServerSeed } from '@vane/server';
import { waitForRevision } from '@vane/server/testing';
import { FeatureFlag, Flag, Secret, VaneModule } from '@vane/nestjs';
import express from 'express';
import { startTcpMicroservice } from '../libs/nestjs/test/support/tcp-microservice.js';
import Fastify from 'fastify';
import { firstValueFrom } from 'rxjs';
import request from 'supertest';

const KEY = 'svs_shared_revision_secret_key_0001';

/** A backend service with a text secret and no file secret. */
const SEED: VaneServerSeed = {
  services: {
    shop: {
      kind: 'backend',
      keys: [KEY],
      configs: { 'db.pool.max': 10 },
      flags: { 'new-checkout': { is_enabled: true } },
      secrets: { 'stripe.api_key': { type: 'text', value: 'rk_v1' } },
    },
  },
};

/** What a request reads through the client (or its accessor). */
interface Reads {
  readonly flag: boolean;
  readonly pool: unknown;
  readonly key: string | null;
  readonly revision: number;
}

/** What a handler answers: its reads before the change landed, and after. */
interface Answer {
  readonly before: Reads;
  readonly after: Reads;
}

type Reader = Pick<VaneClient, 'flag' | 'config' | 'secret' | 'revision'>;

/** The values of {@link readsOf} (a request's accessor has no revision). */
const valuesOf = (vane: Omit<Reader, 'revision'>): Omit<Reads, 'revision'> => ({
  flag: vane.flag('new-checkout'),
  pool: vane.config('db.pool.max'),
  key: vane.secret('stripe.api_key'),
});

const readsOf = (vane: Reader): Reads => ({
  flag: vane.flag('new-checkout'),
  pool: vane.config('db.pool.max'),
  key: vane.secret('stripe.api_key'),
  revision: vane.revision,
});

/**
 * Mid-request, changes every value a request reads (the guard's flag goes
 * off) and waits until the client has the change (its update event).
 */
function changer(server: VaneServer): (client: VaneClient) => Promise<void> {
  let round = 0;
  return async (client) => {
    round++;
    server.admin.setConfig('shop', 'db.pool.max', 100 + round);
    server.admin.setSecret('shop', 'stripe.api_key', `rk_round_${round}`);
    await waitForRevision(client, server.admin.setFlag('shop', 'new-checkout', { is_enabled: false }));
  };
}

/** A running app of one adapter: `call()` answers the handler's body, or `refused` when the guard said no. */
interface Harness {
  readonly client: VaneClient;
  call(): Promise<Answer | 'refused'>;
  close(): Promise<void>;
}

type Start = (server: VaneServer, change: (client: VaneClient) => Promise<void>) => Promise<Harness>;

const overHttp = async (server: Server): Promise<Answer | 'refused'> => {
  const res = await request(server).get('/reads');
  if (res.status === 404) return 'refused';
  expect(res.status).toBe(200);
  return res.body as Answer;
};

/** The Nest handler's service: reads through the injected client, has the change made, reads again. */
@Injectable()
class ShopReads {
  static change: (client: VaneClient) => Promise<void>;
  constructor(private readonly vane: VaneClient) {}

  async acrossAChange(params: { flag: boolean; key: string }): Promise<Answer> {
    const before = readsOf(this.vane);
    expect(params).toEqual({ flag: before.flag, key: before.key });
    await ShopReads.change(this.vane);
    return { before, after: readsOf(this.vane) };
  }
}

@Controller()
class HttpShop {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @Get('reads')
  reads_(@Flag('new-checkout') flag: boolean, @Secret('stripe.api_key') key: string): Promise<Answer> {
    return this.reads.acrossAChange({ flag, key });
  }
}

@Controller()
class RpcShop {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @MessagePattern('reads')
  reads_(@Flag('new-checkout') flag: boolean, @Secret('stripe.api_key') key: string): Promise<Answer> {
    return this.reads.acrossAChange({ flag, key });
  }
}

const nestModule = (server: VaneServer, controller: typeof HttpShop | typeof RpcShop) =>
  Test.createTestingModule({
    imports: [VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEY, startupCheck: 'off' })],
    controllers: [controller],
    providers: [ShopReads],
  }).compile();

const ADAPTERS: [string, Start][] = [
  [
    '@vane/nestjs, HTTP on Express',
    async (server, change) => {
      ShopReads.change = change;
      const module = await nestModule(server, HttpShop);
      const app: INestApplication = module.createNestApplication({ logger: false });
      await app.init();
      return { client: module.get(VaneClient), call: () => overHttp(app.getHttpServer()), close: () => app.close() };
    },
  ],
  [
    '@vane/nestjs, HTTP on Fastify',
    async (server, change) => {
      ShopReads.change = change;
      const module = await nestModule(server, HttpShop);
      const app = module.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
      return { client: module.get(VaneClient), call: () => overHttp(app.getHttpServer()), close: () => app.close() };
    },
  ],
  [
    '@vane/nestjs, a microservice message',
    async (server, change) => {
      ShopReads.change = change;
      const module = await nestModule(server, RpcShop);
      const { client: proxy, close } = await startTcpMicroservice(module);
      const call = (): Promise<Answer | 'refused'> =>
        firstValueFrom(proxy.send<Answer>('reads', {})).catch(() => 'refused' as const);
      return { client: module.get(VaneClient), call, close };
    },
  ],
  [
    '@vane/express',
    async (server, change) => {
      const vane: VaneExpress = await createVane({ baseUrl: server.baseUrl('shop'), apiKey: KEY });
      const app = express();
      app.use(vane.middleware());
      app.get('/reads', vane.requireFlag('new-checkout'), (req, res, next) => {
        const before = readsOf(vane.client);
        expect(valuesOf(req.vane)).toEqual(valuesOf(vane.client));
        change(vane.client)
          .then(() => {
            expect(valuesOf(req.vane)).toEqual(valuesOf(vane.client));
            res.json({ before, after: readsOf(vane.client) });
          })
          .catch(next);
      });
      const http = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => http.once('listening', resolve));
      return {
        client: vane.client,
        call: () => overHttp(http),
        close: async () => {
          await new Promise((resolve) => http.close(resolve));
          await vane.close();
        },
      };
    },
  ],
  [
    '@vane/fastify',
    async (server, change) => {
      const app = Fastify();
      await app.register(vanePlugin, { baseUrl: server.baseUrl('shop'), apiKey: KEY });
      app.get('/reads', { preHandler: app.vane.requireFlag('new-checkout') }, async (req) => {
        const before = readsOf(app.vane.client);
        expect(valuesOf(req.vane)).toEqual(valuesOf(app.vane.client));
        await change(app.vane.client);
        expect(valuesOf(req.vane)).toEqual(valuesOf(app.vane.client));
        return { before, after: readsOf(app.vane.client) };
      });
      await app.ready();
      return { client: app.vane.client, call: () => overHttp(app.server), close: () => app.close() };
    },
  ],
];

describe.each(ADAPTERS)(
  'one revision per request without file secrets (a shared, uncounted revision): %s',
  (_name, start) => {
    let server: VaneServer;

    beforeEach(async () => {
      server = await startVaneServer({ seed: SEED, port: 0 });
    });
    afterEach(async () => {
      await server.close();
    });

    it('reads the revision of its start across a change; the next request reads the new one', async () => {
      const harness = await start(server, changer(server));
      try {
        const first = (await harness.call()) as Answer;
        expect(first.before).toEqual({ flag: true, pool: 10, key: 'rk_v1', revision: first.before.revision });
        expect(first.after).toEqual(first.before);
        expect(harness.client.revision).toBeGreaterThan(first.before.revision);
        // Outside any request, reads are live.
        expect(readsOf(harness.client)).toMatchObject({ flag: false, pool: 101, key: 'rk_round_1' });
        // The next request reads the new revision: its guard refuses it.
        await expect(harness.call()).resolves.toBe('refused');
        await waitForRevision(harness.client, server.admin.setFlag('shop', 'new-checkout', { is_enabled: true }));
        const next = (await harness.call()) as Answer;
        expect(next.before).toMatchObject({ flag: true, pool: 101, key: 'rk_round_1' });
        expect(next.after).toEqual(next.before);
        // Nothing counted, nothing on disk: only revisions the garbage collector has not reclaimed yet are held.
        expect(pinStatsOf(harness.client).fileVersions).toBe(0);
      } finally {
        await harness.close();
      }
    }, 30_000);
  },
);
