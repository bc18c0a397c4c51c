import { createServer, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { startVaneServer, type VaneServer } from '@vane/server';
import { Agent } from 'undici';
import { VaneClient } from '../src/index.js';
import { createDefaultDispatcher } from '../src/http/transport.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { SHOP_SK, seed } from './helpers/seed.js';

/** A CONNECT proxy on loopback that tunnels every target to the local server. */
async function startConnectProxy(
  targetPort: number,
): Promise<{ server: Server; url: string; connects: string[]; close(): Promise<void> }> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, clientSocket: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    const upstream = netConnect(targetPort, '127.0.0.1', () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    sockets.add(clientSocket).add(upstream);
    const drop = () => {
      clientSocket.destroy();
      upstream.destroy();
    };
    upstream.on('error', drop);
    clientSocket.on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    connects,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('proxies and dispatchers', () => {
  let local: VaneServer;
  beforeEach(async () => {
    local = await startVaneServer({ seed: seed(), port: 0 });
  });
  afterEach(async () => {
    await local.close();
  });

  it('goes through HTTP_PROXY with the service host untouched', async () => {
    const proxy = await startConnectProxy(local.port);
    const baseUrl = `http://shop.vane.test:${local.port}`;
    const dispatcher = createDefaultDispatcher(new URL(baseUrl), { HTTP_PROXY: proxy.url });
    try {
      const client = await VaneClient.create({
        baseUrl,
        apiKey: SHOP_SK,
        dispatcher,
        stream: false,
        logger: new MemoryLogger(),
      });
      expect(client.config('db.host')).toBe('db.internal');
      await client.close();
      expect(proxy.connects).toEqual([`shop.vane.test:${local.port}`]);
    } finally {
      await dispatcher.destroy();
      await proxy.close();
    }
  });

  it('bypasses the proxy for NO_PROXY hosts', async () => {
    const proxy = await startConnectProxy(local.port);
    const dispatcher = createDefaultDispatcher(new URL(`http://127.0.0.1:${local.port}`), {
      HTTP_PROXY: proxy.url,
      NO_PROXY: '127.0.0.1',
    });
    try {
      // Host "127.0.0.1" names no service: the direct answer is the server's 404.
      await expect(
        VaneClient.create({
          baseUrl: `http://127.0.0.1:${local.port}`,
          apiKey: SHOP_SK,
          dispatcher,
          stream: false,
          logger: new MemoryLogger(),
        }),
      ).rejects.toMatchObject({
        code: 'VANE_NOT_FOUND',
      });
      expect(proxy.connects).toEqual([]);
    } finally {
      await dispatcher.destroy();
      await proxy.close();
    }
  });

  it("uses the caller's dispatcher and does not close it", async () => {
    let lookups = 0;
    const dispatcher = new Agent({
      connect: {
        lookup: (_host, options, callback) => {
          lookups++;
          if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
          else callback(null, '127.0.0.1', 4);
        },
      },
    });
    const client = await VaneClient.create({
      baseUrl: local.baseUrl('shop'),
      apiKey: SHOP_SK,
      dispatcher,
      stream: false,
      logger: new MemoryLogger(),
    });
    await client.close();
    expect(lookups).toBeGreaterThan(0);
    expect(dispatcher.closed).toBe(false);
    await dispatcher.destroy();
  });
});
