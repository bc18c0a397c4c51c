import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkConnectivity } from '../src/index.js';
import { MAX_ERROR_BODY_BYTES } from '../src/http/service-http.js';

// A server that answers 500 with a body that would go on for 64 MiB, writing
// only as fast as the client reads, and counts what it managed to send.
function endlessErrorServer(): Promise<{ server: Server; url: string; sent: () => number; ended: Promise<void> }> {
  let sent = 0;
  let finish!: () => void;
  const ended = new Promise<void>((resolve) => (finish = resolve));
  const server = createServer((_req, res) => {
    // A Vane service's error (Vane-Protocol): the client reads the body, so its bound is what is tested.
    res.writeHead(500, { 'content-type': 'application/json', 'vane-protocol': '1' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = 1024;
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        left--;
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', finish);
    res.write('{"error": "internal", "message": "');
    pump();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://shop.localhost:${(server.address() as AddressInfo).port}`,
        sent: () => sent,
        ended,
      }),
    ),
  );
}

describe('answers of unbounded size', () => {
  it('reads only the start of an error body and drops the connection, instead of buffering it all', async () => {
    const { server, url, sent, ended } = await endlessErrorServer();
    try {
      const result = await checkConnectivity({ baseUrl: url, apiKey: 'svs_test_key_0001', timeoutMs: 5000 });
      expect(result).toMatchObject({ ok: false, status: 500, code: 'VANE_UNEXPECTED_RESPONSE' });
      await ended;
      // The server stopped long before its 64 MiB: the client hung up after MAX_ERROR_BODY_BYTES (plus socket buffers).
      expect(sent()).toBeLessThan(32 * 1024 * 1024);
      expect(MAX_ERROR_BODY_BYTES).toBe(64 * 1024);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
