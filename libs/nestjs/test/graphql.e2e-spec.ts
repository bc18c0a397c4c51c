import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Logger, type INestApplication } from '@nestjs/common';
import { Args, GraphQLModule, Query, Resolver } from '@nestjs/graphql';
import { Test } from '@nestjs/testing';
import { startVaneServer, type VaneServer } from '@vane/server';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { FeatureFlag, Flag, Secret, userOf, VaneModule, type VaneContextFactory } from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';
import { FaultProxy } from '@vane/test-harness';

// #region ab-context-any-transport
/** The user's id and country, wherever the transport keeps the user (here: req.user, through the GraphQL context). */
const abContext: VaneContextFactory = (ctx) => {
  const user = userOf(ctx) as { id: string; country?: string } | undefined;
  return user && { userId: user.id, attributes: { country: user.country } };
};
// #endregion ab-context-any-transport

// #region graphql-resolver
@Resolver()
class ShopResolver {
  @FeatureFlag('new-checkout')
  @Query(() => String)
  checkout(): string {
    return 'new checkout';
  }

  @FeatureFlag('new-pricing', { ab: true })
  @Query(() => String)
  pricing(@Flag('dark-mode', { ab: true }) dark: boolean): string {
    return dark ? 'new pricing, dark' : 'new pricing';
  }

  @Query(() => String)
  paymentKey(@Secret('stripe.api_key') key: string): string {
    return key.slice(0, 3);
  }
}
// #endregion graphql-resolver

@Resolver()
class DarkResolver {
  @FeatureFlag('beta')
  @Query(() => String, { nullable: true })
  beta(): string {
    return 'never';
  }
  @FeatureFlag('beta', { exception: 403 })
  @Query(() => String, { nullable: true })
  betaForbidden(): string {
    return 'never';
  }
  @Query(() => String, { nullable: true })
  missingSecret(@Secret('no.such.secret') value: string): string {
    return value;
  }
  @Query(() => Boolean)
  flag(@Args('ab', { type: () => Boolean }) _ab: boolean, @Flag('beta') beta: boolean): boolean {
    return beta;
  }
}

interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

describe('in GraphQL resolvers (@nestjs/graphql with Apollo)', () => {
  let server: VaneServer;
  let proxy: FaultProxy;
  let app: INestApplication;

  const query = async (source: string, userId?: string): Promise<GraphQLAnswer> => {
    const call = request(app.getHttpServer()).post('/graphql').send({ query: source });
    if (userId !== undefined) void call.set('x-user-id', userId);
    const res = await call.expect(200);
    return res.body as GraphQLAnswer;
  };

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    proxy = await FaultProxy.start(server.port);
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({ baseUrl: proxy.baseUrl('shop'), apiKey: KEYS.shopSecret, abContext, startupCheck: 'off' }),
        GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, autoSchemaFile: true }),
      ],
      providers: [ShopResolver, DarkResolver],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    // What an authentication middleware does; the default abContext reads req.user through the GraphQL context.
    app.use((req: Request & { user?: unknown }, _res: Response, next: NextFunction) => {
      const id = req.get('x-user-id');
      if (id !== undefined) req.user = { id, country: 'DE' };
      next();
    });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await server.close();
  });

  it('serves a query whose flag is on', async () => {
    expect(await query('{ checkout }')).toEqual({ data: { checkout: 'new checkout' } });
  });

  it('refuses a query whose flag is off with extensions.code NOT_FOUND, not INTERNAL_SERVER_ERROR', async () => {
    const answer = await query('{ beta }');
    expect(answer.data).toEqual({ beta: null });
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0]).toMatchObject({
      message: 'Not Found',
      path: ['beta'],
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('answers FORBIDDEN with exception: 403', async () => {
    const answer = await query('{ betaForbidden }');
    expect(answer.errors![0]).toMatchObject({ message: 'Forbidden', extensions: { code: 'FORBIDDEN' } });
  });

  it('evaluates an A/B flag for the user of the request, guard and @Flag() in one call', async () => {
    const before = proxy.count('/v1/flags/evaluate-ab');
    expect(await query('{ pricing }', 'u-7')).toEqual({ data: { pricing: 'new pricing, dark' } });
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(before + 1);
    const anonymous = await query('{ pricing }');
    expect(anonymous.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('injects @Flag() and @Secret() in a resolver', async () => {
    expect(await query('{ paymentKey flag(ab: false) }')).toEqual({ data: { paymentKey: 'rk_', flag: false } });
  });

  it('a missing @Secret() is a generic error for the caller; the key only in the log', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const answer = await query('{ missingSecret }');
      expect(answer.errors![0]).toMatchObject({ message: 'Internal server error' });
      expect(JSON.stringify(answer)).not.toContain('no.such.secret');
      expect(error).toHaveBeenCalledWith(expect.stringContaining('"no.such.secret"'));
    } finally {
      error.mockRestore();
    }
  });
});
