import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { Query, Resolver, GraphQLModule } from '@nestjs/graphql';
import { MessagePattern } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { VaneClient } from '@vane/client';
import { pinStatsOf } from '@vane/client/adapter';
import { startVaneServer, type VaneServer } from '@vane/server';
import { firstValueFrom } from 'rxjs';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import request from 'supertest';
import { FeatureFlag, Flag, Secret, VaneModule } from '../src/index.js';
import { midRequestChange, MidRequestChange, ShopReads, type Answer } from './support/mid-request.js';
import { startTcpMicroservice } from './support/tcp-microservice.js';
import { KEYS, nestSeed } from './support/seed.js';

@Controller()
class HttpShop {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @Get('reads')
  reads_(
    @Flag('new-checkout') flag: boolean,
    @Secret('stripe.api_key') key: string,
    @Secret('tls.client_pem', { file: true }) pemPath: string,
  ): Promise<Answer> {
    return this.reads.acrossAChange({ flag, key, pemPath });
  }
}

@Resolver()
class GraphQLShop {
  constructor(private readonly shop: ShopReads) {}

  @FeatureFlag('new-checkout')
  @Query(() => String)
  async reads(
    @Flag('new-checkout') flag: boolean,
    @Secret('stripe.api_key') key: string,
    @Secret('tls.client_pem', { file: true }) pemPath: string,
  ): Promise<string> {
    return JSON.stringify(await this.shop.acrossAChange({ flag, key, pemPath }));
  }
}

@Controller()
class RpcShop {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @MessagePattern('reads')
  reads_(
    @Flag('new-checkout') flag: boolean,
    @Secret('stripe.api_key') key: string,
    @Secret('tls.client_pem', { file: true }) pemPath: string,
  ): Promise<Answer> {
    return this.reads.acrossAChange({ flag, key, pemPath });
  }
}

// #region websocket-pinning
// No Vane decorator on the gateway: the module pins every message (Nest's app-wide interceptors skip gateways).
@WebSocketGateway()
class WsShop {
  constructor(private readonly reads: ShopReads) {}

  @FeatureFlag('new-checkout')
  @SubscribeMessage('reads')
  reads_(
    @Flag('new-checkout') flag: boolean,
    @Secret('stripe.api_key') key: string,
    @Secret('tls.client_pem', { file: true }) pemPath: string,
  ): Promise<Answer> {
    return this.reads.acrossAChange({ flag, key, pemPath });
  }
}
// #endregion websocket-pinning

/** One way in: a running app and a call that answers the handler's body, or `refused` when the guard said no. */
interface Harness {
  readonly module: TestingModule;
  call(): Promise<Answer | 'refused'>;
  close(): Promise<void>;
}

type Start = (server: VaneServer, consistentReads: boolean) => Promise<Harness>;

const moduleFor = (
  server: VaneServer,
  consistentReads: boolean,
  parts: { controllers?: any[]; providers?: any[]; imports?: any[] },
) =>
  Test.createTestingModule({
    imports: [
      VaneModule.forRoot({
        baseUrl: server.baseUrl('shop'),
        apiKey: KEYS.shopSecret,
        startupCheck: 'off',
        consistentReads,
      }),
      ...(parts.imports ?? []),
    ],
    controllers: parts.controllers ?? [],
    providers: [ShopReads, midRequestChange(server), ...(parts.providers ?? [])],
  }).compile();

const overHttp = async (app: INestApplication): Promise<Answer | 'refused'> => {
  const res = await request(app.getHttpServer()).get('/reads');
  if (res.status === 404) return 'refused';
  expect(res.status).toBe(200);
  return res.body as Answer;
};

const TRANSPORTS: [string, Start][] = [
  [
    'HTTP on Express',
    async (server, consistentReads) => {
      const module = await moduleFor(server, consistentReads, { controllers: [HttpShop] });
      const app = module.createNestApplication({ logger: false });
      await app.init();
      return { module, call: () => overHttp(app), close: () => app.close() };
    },
  ],
  [
    'HTTP on Fastify',
    async (server, consistentReads) => {
      const module = await moduleFor(server, consistentReads, { controllers: [HttpShop] });
      const app = module.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
      return { module, call: () => overHttp(app), close: () => app.close() };
    },
  ],
  [
    'a GraphQL operation',
    async (server, consistentReads) => {
      const module = await moduleFor(server, consistentReads, {
        imports: [GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, autoSchemaFile: true })],
        providers: [GraphQLShop],
      });
      const app = module.createNestApplication({ logger: false });
      await app.init();
      const call = async (): Promise<Answer | 'refused'> => {
        const res = await request(app.getHttpServer()).post('/graphql').send({ query: '{ reads }' }).expect(200);
        const body = res.body as { data?: { reads: string } | null; errors?: { extensions?: { code?: string } }[] };
        if (body.errors?.[0]?.extensions?.code === 'NOT_FOUND') return 'refused';
        return JSON.parse(body.data!.reads) as Answer;
      };
      return { module, call, close: () => app.close() };
    },
  ],
  [
    'a microservice message',
    async (server, consistentReads) => {
      const module = await moduleFor(server, consistentReads, { controllers: [RpcShop] });
      const { client, close } = await startTcpMicroservice(module);
      const call = (): Promise<Answer | 'refused'> =>
        firstValueFrom(client.send<Answer>('reads', {})).catch((err: unknown) => {
          expect(err).toEqual({ status: 'error', message: 'Not Found' });
          return 'refused' as const;
        });
      return { module, call, close };
    },
  ],
  [
    'a WebSocket message',
    async (server, consistentReads) => {
      const module = await moduleFor(server, consistentReads, { providers: [WsShop] });
      const app = module.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const socket: ClientSocket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no connection within 5 s')), 5000);
        socket.once('connect', () => (clearTimeout(timer), resolve()));
        socket.once('connect_error', (err) => (clearTimeout(timer), reject(err)));
      });
      const call = (): Promise<Answer | 'refused'> =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no answer within 10 s')), 10_000);
          socket.once('exception', () => (clearTimeout(timer), resolve('refused')));
          socket.emit('reads', {}, (answer: Answer) => (clearTimeout(timer), resolve(answer)));
        });
      return {
        module,
        call,
        close: async () => {
          socket.disconnect();
          await app.close();
        },
      };
    },
  ],
];

describe.each(TRANSPORTS)('one revision per call: %s', (_name, start) => {
  let server: VaneServer;

  beforeEach(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('the guard, the parameters and the injected service read the revision of the start; the next call sees the change', async () => {
    const harness = await start(server, true);
    try {
      const change = harness.module.get(MidRequestChange);
      const answer = await harness.call();
      expect(answer).not.toBe('refused');
      const { params, before, after } = answer as Answer;
      // The guard let the call through on `new-checkout` on: everything the handler read agrees with it.
      expect(before).toEqual({ flag: true, pool: 10, revision: before.revision, key: 'rk_test_v1', pem: 'pem-v1' });
      expect(after).toEqual(before);
      expect(params).toEqual({ flag: true, key: 'rk_test_v1', pem: 'pem-v1' });
      // The next call reads the new revision: its guard refuses it.
      await expect(harness.call()).resolves.toBe('refused');
      await change.restore();
      const next = (await harness.call()) as Answer;
      expect(next.before).toMatchObject({ flag: true, pool: 101, key: 'rk_round_1', pem: 'pem-round-1' });
      expect(next.after).toEqual(next.before);
      expect(next.params).toEqual({ flag: true, key: 'rk_round_1', pem: 'pem-round-1' });
      expect(pinStatsOf(harness.module.get(VaneClient)).heldRevisions).toBeLessThanOrEqual(1);
    } finally {
      await harness.close();
    }
  }, 30_000);

  it('with consistentReads: false, the handler and its service see the change', async () => {
    const harness = await start(server, false);
    try {
      const answer = (await harness.call()) as Answer;
      expect(answer.before).toMatchObject({ flag: true, pool: 10, key: 'rk_test_v1', pem: 'pem-v1' });
      expect(answer.after).toMatchObject({ flag: false, pool: 101, key: 'rk_round_1', pem: 'pem-round-1' });
      expect(answer.after.revision).toBeGreaterThan(answer.before.revision);
      // The parameters were resolved before the change: the text is the old one, the file path the live one.
      expect(answer.params).toEqual({ flag: true, key: 'rk_test_v1', pem: 'pem-round-1' });
    } finally {
      await harness.close();
    }
  }, 30_000);
});
