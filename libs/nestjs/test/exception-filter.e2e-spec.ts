// VaneExceptionFilter (#20): the client's typed errors a handler lets escape, answered as
// @vane/express and @vane/fastify answer them (test/adapter-parity.e2e-spec.ts has the shared rows);
// here what is Nest's own: the option, other exceptions left alone, Fastify, GraphQL and microservices.
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Controller, Get, NotFoundException } from '@nestjs/common';
import { Query, Resolver, GraphQLModule } from '@nestjs/graphql';
import { MessagePattern } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { VaneLogger } from '@vane/client';
import { VANE_ERROR_ANSWERS } from '@vane/client/adapter';
import { RateLimitedError } from '@vane/client/errors';
import { startVaneServer, type VaneServer } from '@vane/server';
import { firstValueFrom } from 'rxjs';
import request from 'supertest';
import { VaneModule, type VaneModuleOptions } from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';
import { startTcpMicroservice } from './support/tcp-microservice.js';

const rateLimited = (): RateLimitedError =>
  new RateLimitedError('rate limited by the service (own message)', { retryAfterMs: 1200 });
const BODY = { statusCode: 503, code: 'VANE_RATE_LIMITED', message: VANE_ERROR_ANSWERS.VANE_RATE_LIMITED.message };

@Controller()
class Routes {
  @Get('limited')
  limited(): never {
    throw rateLimited();
  }
  @Get('plain-error')
  plain(): never {
    throw new Error('not a Vane error');
  }
  @Get('not-found')
  notFound(): never {
    throw new NotFoundException('nothing here');
  }
  @MessagePattern('limited')
  limitedMessage(): never {
    throw rateLimited();
  }
}

@Resolver()
class Queries {
  @Query(() => String)
  limited(): string {
    throw rateLimited();
  }
}

describe('VaneExceptionFilter', () => {
  let server: VaneServer;
  const lines: string[] = [];
  const logger: VaneLogger = { warn: (m) => void lines.push(`warn ${m}`), error: (m) => void lines.push(`error ${m}`) };
  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
  });
  afterAll(() => server.close());
  beforeEach(() => void lines.splice(0));

  const moduleWith = (
    options: Partial<VaneModuleOptions> = {},
    extra: { imports?: never[]; providers?: never[] } = {},
  ) =>
    Test.createTestingModule({
      imports: [
        VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), apiKey: KEYS.shopSecret, logger, ...options }),
        ...(extra.imports ?? []),
      ],
      controllers: [Routes],
      providers: extra.providers ?? [],
    }).compile();

  it('on Express: the shared status, Retry-After and body; logged once with the code; other exceptions left to Nest', async () => {
    const app = (await moduleWith()).createNestApplication({ logger: false });
    await app.init();
    try {
      const res = await request(app.getHttpServer()).get('/limited').expect(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toEqual(BODY);
      expect(res.text).not.toContain('own message');
      expect(lines).toEqual([expect.stringMatching(/^error GET \/limited: 503 VANE_RATE_LIMITED: /)]);
      await request(app.getHttpServer())
        .get('/plain-error')
        .expect(500, { statusCode: 500, message: 'Internal server error' });
      await request(app.getHttpServer()).get('/not-found').expect(404);
    } finally {
      await app.close();
    }
  }, 30_000);

  it('exceptionFilter: { statuses } changes a status by code; false leaves the error to Nest (500)', async () => {
    const app = (await moduleWith({ exceptionFilter: { statuses: { VANE_RATE_LIMITED: 429 } } })).createNestApplication(
      {
        logger: false,
      },
    );
    await app.init();
    try {
      const res = await request(app.getHttpServer()).get('/limited').expect(429);
      expect(res.body).toEqual({ ...BODY, statusCode: 429 });
    } finally {
      await app.close();
    }
    const off = (await moduleWith({ exceptionFilter: false })).createNestApplication({ logger: false });
    await off.init();
    try {
      await request(off.getHttpServer())
        .get('/limited')
        .expect(500, { statusCode: 500, message: 'Internal server error' });
    } finally {
      await off.close();
    }
  }, 30_000);

  it('a bad exceptionFilter option is refused at startup, naming the option', async () => {
    await expect(moduleWith({ exceptionFilter: 'yes' as never })).rejects.toThrow(/exceptionFilter must be/);
  }, 30_000);

  it('on Fastify: the same answer', async () => {
    const app = (await moduleWith()).createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
      logger: false,
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    try {
      const res = await request(app.getHttpServer()).get('/limited').expect(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toEqual(BODY);
    } finally {
      await app.close();
    }
  }, 30_000);

  it('in GraphQL: the fixed message, with the code and status in extensions', async () => {
    const module = await moduleWith(
      {},
      {
        imports: [GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, autoSchemaFile: true }) as never],
        providers: [Queries as never],
      },
    );
    const app = module.createNestApplication({ logger: false });
    await app.init();
    try {
      const res = await request(app.getHttpServer()).post('/graphql').send({ query: '{ limited }' }).expect(200);
      expect(res.body.errors[0]).toMatchObject({
        message: BODY.message,
        extensions: { code: 'VANE_RATE_LIMITED', statusCode: 503 },
      });
      expect(res.text).not.toContain('own message');
    } finally {
      await app.close();
    }
  }, 30_000);

  it('in a microservice: the body as the error', async () => {
    const { client, close } = await startTcpMicroservice(await moduleWith());
    try {
      await expect(firstValueFrom(client.send('limited', {}))).rejects.toEqual({ status: 'error', ...BODY });
    } finally {
      await close();
    }
  }, 30_000);
});
