import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  type OnGatewayConnection,
} from '@nestjs/websockets';
import { startVaneServer, type VaneServer } from '@vane/server';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import type { Socket } from 'socket.io';
import { FeatureFlag, Flag, VaneModule, userOf, type VaneContextFactory } from '../src/index.js';
import { KEYS, nestSeed } from './support/seed.js';

// #region websocket-gateway
@WebSocketGateway()
class ShopGateway implements OnGatewayConnection {
  /** Authenticates the connection once; the default abContext reads client.data.user (socket.io). */
  handleConnection(client: Socket): void {
    const { userId, country } = client.handshake.auth as { userId?: string; country?: string };
    if (userId !== undefined) client.data = { user: { id: userId, country } };
  }

  @FeatureFlag('new-checkout')
  @SubscribeMessage('checkout')
  checkout(@MessageBody() order: { id: number }): object {
    return { checkedOut: order.id };
  }

  @FeatureFlag('new-pricing', { ab: true })
  @SubscribeMessage('price')
  price(@Flag('dark-mode', { ab: true }) dark: boolean): object {
    return { price: 'new', dark };
  }

  @FeatureFlag('beta')
  @SubscribeMessage('beta')
  beta(@ConnectedSocket() _client: Socket): string {
    return 'never';
  }
}
// #endregion websocket-gateway

const abContext: VaneContextFactory = (ctx) => {
  const user = userOf(ctx) as { id: string; country?: string } | undefined;
  return user && { userId: user.id, attributes: { country: user.country } };
};

describe('in a WebSocket gateway (@nestjs/websockets with socket.io)', () => {
  let server: VaneServer;
  let app: INestApplication;
  let url: string;
  const sockets: ClientSocket[] = [];

  /** A connected socket.io client (bounded wait). */
  const connect = async (auth: Record<string, string> = {}): Promise<ClientSocket> => {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no connection within 5 s')), 5000);
      socket.once('connect', () => (clearTimeout(timer), resolve()));
      socket.once('connect_error', (err) => (clearTimeout(timer), reject(err)));
    });
    return socket;
  };

  /** The `exception` event a refused message gets (bounded wait). */
  const nextException = (socket: ClientSocket): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no exception event within 5 s')), 5000);
      socket.once('exception', (payload: unknown) => (clearTimeout(timer), resolve(payload)));
    });

  beforeAll(async () => {
    server = await startVaneServer({ seed: nestSeed(), port: 0 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VaneModule.forRoot({
          baseUrl: server.baseUrl('shop'),
          apiKey: KEYS.shopSecret,
          abContext,
          startupCheck: 'off',
        }),
      ],
      providers: [ShopGateway],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await app.close();
    await server.close();
  });

  it('answers a message whose flag is on', async () => {
    const socket = await connect();
    await expect(socket.timeout(5000).emitWithAck('checkout', { id: 3 })).resolves.toEqual({ checkedOut: 3 });
  });

  it('refuses a message whose flag is off with a WsException: an exception event, not "Internal server error"', async () => {
    const socket = await connect();
    const exception = nextException(socket);
    socket.emit('beta', { id: 1 });
    await expect(exception).resolves.toEqual({
      status: 'error',
      message: 'Not Found',
      cause: { pattern: 'beta', data: { id: 1 } },
    });
  });

  it("evaluates A/B flags for the connection's user", async () => {
    const de = await connect({ userId: 'u-1', country: 'DE' });
    await expect(de.timeout(5000).emitWithAck('price', {})).resolves.toEqual({ price: 'new', dark: true });
    const us = await connect({ userId: 'u-2', country: 'US' });
    const refused = nextException(us);
    us.emit('price', {});
    await expect(refused).resolves.toMatchObject({ status: 'error', message: 'Not Found' });
  });
});
