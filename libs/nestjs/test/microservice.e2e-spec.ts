import { Controller, NotFoundException, type INestMicroservice } from '@nestjs/common';
import {
  ClientProxyFactory,
  MessagePattern,
  Payload,
  RpcException,
  Transport,
  type ClientProxy,
} from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { startVaneServer, type VaneServer } from '@vane/server';
import type { AddressInfo, Server } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { FeatureFlag, Flag, VaneModule, type FeatureFlagException } from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';

// #region microservice-handler
@Controller()
class OrdersController {
  @FeatureFlag('new-checkout')
  @MessagePattern('orders.checkout')
  checkout(@Payload() order: { id: number }): object {
    return { checkedOut: order.id };
  }

  @FeatureFlag('new-pricing', { ab: true }) // the user is the message's `user`, as the caller sends it
  @MessagePattern('orders.price')
  price(@Flag('dark-mode', { ab: true }) dark: boolean): object {
    return { price: 'new', dark };
  }
}
// #endregion microservice-handler

// #region flag-exception-per-transport
/** One refusal for every transport, chosen by the context's type. */
const featureOff: FeatureFlagException = (denial, ctx) =>
  ctx.getType() === 'rpc'
    ? new RpcException({ status: 'error', code: 'FEATURE_OFF', feature: denial.key })
    : new NotFoundException();
// #endregion flag-exception-per-transport

@Controller()
class BetaController {
  @FeatureFlag('beta', { exception: featureOff })
  @MessagePattern('beta.custom')
  custom(): string {
    return 'never';
  }
  @FeatureFlag('beta')
  @MessagePattern('beta.run')
  run(): string {
    return 'never';
  }
  @FeatureFlag('beta', { exception: 403 })
  @MessagePattern('beta.forbidden')
  forbidden(): string {
    return 'never';
  }
}

describe('in a microservice (@nestjs/microservices over TCP)', () => {
  let server: VaneServer;
  let app: INestMicroservice;
  let client: ClientProxy;

  const send = (pattern: string, data: unknown): Promise<unknown> => firstValueFrom(client.send(pattern, data));

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          // The default context gives no attributes; this one adds the user's country.
          abContext: (ctx) => {
            const user = ctx.switchToRpc().getData<{ user?: { id: string; country: string } }>().user;
            return user && { userId: user.id, attributes: { country: user.country } };
          },
          startupCheck: 'off',
        }),
      ],
      controllers: [OrdersController, BetaController],
    }).compile();
    app = moduleRef.createNestMicroservice({ transport: Transport.TCP, options: { host: '127.0.0.1', port: 0 } });
    app.useLogger(false);
    await app.listen();
    const { port } = app.unwrap<Server>().address() as AddressInfo;
    client = ClientProxyFactory.create({ transport: Transport.TCP, options: { host: '127.0.0.1', port } });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    await app.close();
    await server.close();
  });

  it('answers a message whose flag is on', async () => {
    await expect(send('orders.checkout', { id: 7 })).resolves.toEqual({ checkedOut: 7 });
  });

  it('refuses a message whose flag is off with an RpcException the caller can read', async () => {
    await expect(send('beta.run', {})).rejects.toEqual({ status: 'error', message: 'Not Found' });
    await expect(send('beta.forbidden', {})).rejects.toEqual({ status: 'error', message: 'Forbidden' });
  });

  it('lets an exception function answer per transport', async () => {
    await expect(send('beta.custom', {})).rejects.toEqual({ status: 'error', code: 'FEATURE_OFF', feature: 'beta' });
  });

  it('evaluates A/B flags for the user the message carries', async () => {
    await expect(send('orders.price', { user: { id: 'u-1', country: 'FR' } })).resolves.toEqual({
      price: 'new',
      dark: true,
    });
    await expect(send('orders.price', { user: { id: 'u-1', country: 'US' } })).rejects.toEqual({
      status: 'error',
      message: 'Not Found',
    });
    await expect(send('orders.price', {})).rejects.toEqual({ status: 'error', message: 'Not Found' });
  });
});
