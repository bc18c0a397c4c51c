import { request } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { startVaneServer, type VaneServer } from '@vane/server';
import {
  AdminRequestError,
  adminPut,
  adminRequest,
  TEST_KEYS,
  testSeed,
  until,
  withTimeout,
} from '@vane/server/testing';
import { FaultProxy, rawResponse } from './fault-proxy.js';

let server: VaneServer;
let proxy: FaultProxy;

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  proxy = await FaultProxy.start(server.port);
});

afterEach(async () => {
  await proxy.close();
  await server.close();
});

interface Reply {
  status: number;
  text: string;
}

/** One request through the proxy (no keep-alive unless `agent` is given); `chunks` sends the body chunked. */
function send(
  method: string,
  path: string,
  options: { body?: string; chunks?: string[]; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const url = `${proxy.baseUrl('shop')}${path}`;
  return withTimeout(
    new Promise<Reply>((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent: false,
          lookup: (_host, _options, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]),
          headers: { 'x-service-api-key': TEST_KEYS.shopSecret, ...options.headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      if (options.chunks) {
        for (const chunk of options.chunks) req.write(chunk);
        req.end();
      } else req.end(options.body);
    }),
    `${method} ${path} through the proxy`,
  );
}

describe('FaultProxy', () => {
  it('forwards requests unchanged and records each with its path and body (content-length and chunked)', async () => {
    expect((await send('GET', '/v1/sync?x=1')).status).toBe(200);
    const body = JSON.stringify({ keys: ['new-pricing'], user_id: 'u-1', attributes: { country: 'DE' } });
    const ab = await send('POST', '/v1/flags/evaluate-ab', { body, headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(ab.text)).toMatchObject({ results: { 'new-pricing': true } });
    const chunked = await send('POST', '/v1/flags/evaluate-ab', {
      chunks: [body.slice(0, 10), body.slice(10)],
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect(chunked.status).toBe(200);
    expect(proxy.count('/v1/sync')).toBe(1);
    expect(proxy.count('/v1/flags/evaluate-ab')).toBe(2);
    expect(proxy.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['GET', '/v1/sync', ''],
      ['POST', '/v1/flags/evaluate-ab', body],
      ['POST', '/v1/flags/evaluate-ab', body],
    ]);
    expect(proxy.requests[0]!.line).toBe('GET /v1/sync?x=1 HTTP/1.1');
  });

  it('answers or resets the requests onRequest picks, and heals', async () => {
    proxy.onRequest((line) => (line.startsWith('GET /v1/sync') ? rawResponse(503, '{"error":"down"}') : undefined));
    expect(await send('GET', '/v1/sync')).toEqual({ status: 503, text: '{"error":"down"}' });
    proxy.onRequest(() => 'reset');
    await expect(send('GET', '/v1/sync')).rejects.toThrow(/ECONNRESET|socket hang up/);
    proxy.onRequest(() => 'close');
    await expect(send('GET', '/v1/sync')).rejects.toThrow(/socket hang up/);
    proxy.onRequest(undefined);
    expect((await send('GET', '/v1/sync')).status).toBe(200);
  });

  it('cutStreams resets open and new stream connections, other requests pass', async () => {
    const opened = new Promise<() => void>((resolve, reject) => {
      const req = request(
        `http://127.0.0.1:${proxy.port}/v1/stream`,
        { agent: false, headers: { host: `shop.localhost:${proxy.port}`, 'x-service-api-key': TEST_KEYS.shopSecret } },
        (res) => {
          res.on('error', () => undefined);
          resolve(() => res.destroy());
        },
      );
      req.on('error', reject);
      req.end();
    });
    const close = await withTimeout(opened, 'the stream to open');
    expect(proxy.openConnections).toBe(1);
    proxy.cutStreams(true);
    await expect(send('GET', '/v1/stream')).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect((await send('GET', '/v1/sync')).status).toBe(200);
    proxy.cutStreams(false);
    close();
    expect(proxy.count('/v1/stream')).toBe(2);
  });
});

describe('adminRequest and adminPut', () => {
  it('write through the admin API and resolve with the new revision', async () => {
    const before = server.revision('shop');
    const revision = await adminPut(server, 'services/shop/flags/beta', { is_enabled: true });
    expect(revision).toBe(before + 1);
    expect(server.revision('shop')).toBe(before + 1);
    const answer = await adminRequest(server, 'DELETE', '/services/shop/configs/banner.text');
    expect(answer.revision).toBe(before + 2);
  });

  it('reject with the status and the body on an answer that is not 2xx, never with the token', async () => {
    const error = await adminPut({ url: server.url, adminToken: 'wrong-token' }, 'services/shop/flags/beta', {
      is_enabled: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminRequestError);
    expect((error as AdminRequestError).status).toBe(401);
    expect((error as Error).message).toMatch(/^admin PUT services\/shop\/flags\/beta: 401 /);
    expect((error as Error).message).not.toContain('wrong-token');
  });
});

describe("FaultProxy with { protocol: 'tcp' }", () => {
  it('forwards any bytes both ways, and resets the connections whose last bytes match', async () => {
    // An echo server: a protocol that is not HTTP.
    const echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const tcp = await FaultProxy.start((echo.address() as AddressInfo).port, { protocol: 'tcp' });
    const open = async (): Promise<{ socket: Socket; closed: Promise<void>; received: () => string }> => {
      const socket = connect(tcp.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      return { socket, closed, received: () => text };
    };
    try {
      const listen = await open();
      const query = await open();
      listen.socket.write(Buffer.from('\x00\x00\x00\x1aLISTEN "vane_changes"\x00'));
      query.socket.write(Buffer.from('Q\x00\x00\x00\x0dSELECT 1\x00'));
      await until(() => listen.received().includes('LISTEN') && query.received().includes('SELECT 1'), 'the echoes');
      expect(tcp.requests).toEqual([]);
      expect(tcp.reset((line) => line.startsWith('LISTEN'))).toBe(1);
      await withTimeout(listen.closed, 'the LISTEN connection to be reset');
      expect(query.socket.destroyed).toBe(false);
      query.socket.destroy();
    } finally {
      await tcp.close();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});
