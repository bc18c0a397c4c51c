import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startVaneServer } from '@vane/server';
import { checkConnectivity, VaneClient } from '../src/index.js';
import { NotAVaneServiceError } from '../src/errors.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { SHOP_SK, seed } from './helpers/seed.js';

/**
 * Something that is not a Vane service, listening where `baseUrl` points (a
 * wrong port): it answers like any web app, without `Vane-Protocol`.
 */
async function otherApp(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; baseUrl: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://shop.localhost:${(server.address() as AddressInfo).port}`, requests };
}

/** What Express answers for a route it does not have. */
function expressNotFound(req: IncomingMessage, res: ServerResponse): void {
  const body = `<!DOCTYPE html><html><body><pre>Cannot ${req.method} ${req.url}</pre></body></html>`;
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

describe('an answer without Vane-Protocol is not a Vane service', () => {
  let other: Awaited<ReturnType<typeof otherApp>> | undefined;
  let logger: MemoryLogger;
  beforeEach(() => {
    logger = new MemoryLogger();
  });
  afterEach(async () => {
    if (other) await new Promise<void>((resolve) => other!.server.close(() => resolve()));
    other = undefined;
  });

  it('a 404 from another app on that port is reported as a wrong address, never as a wrong slug', async () => {
    other = await otherApp(expressNotFound);
    const error = await VaneClient.create({ baseUrl: other.baseUrl, apiKey: SHOP_SK, logger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAVaneServiceError);
    expect(error).toMatchObject({ code: 'VANE_NOT_A_VANE_SERVICE', status: 404 });
    const message = (error as Error).message;
    expect(message).toContain(`no Vane service answers at ${new URL(other.baseUrl).host}`);
    expect(message).toMatch(/port in baseUrl/);
    expect(message).not.toMatch(/slug/);
    expect(message).not.toContain(SHOP_SK);
    expect(other.requests).toEqual(['GET /v1/sync']);
  });

  it('checkConnectivity says the same, with the status', async () => {
    other = await otherApp(expressNotFound);
    const result = await checkConnectivity({ baseUrl: other.baseUrl, apiKey: SHOP_SK });
    expect(result).toMatchObject({ ok: false, status: 404, code: 'VANE_NOT_A_VANE_SERVICE' });
    expect(result.message).toContain('no Vane service answers');
  });

  it('a 200 that looks like a snapshot is refused too: its body is not read', async () => {
    other = await otherApp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // A snapshot that never ends: the client must not wait for it.
      res.write('{"service":{"slug":"shop","kind":"backend"},"revision":1,"configs":{');
    });
    await expect(
      VaneClient.create({ baseUrl: other.baseUrl, apiKey: SHOP_SK, logger, timeoutMs: 20_000 }),
    ).rejects.toMatchObject({ code: 'VANE_NOT_A_VANE_SERVICE', status: 200 });
  });

  it('the same 404 from the Vane service itself still names the slug', async () => {
    const server = await startVaneServer({ seed: seed(), port: 0 });
    try {
      const error = await VaneClient.create({ baseUrl: server.baseUrl('nope'), apiKey: SHOP_SK, logger }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'VANE_NOT_FOUND', status: 404 });
      expect((error as Error).message).toMatch(/has no service by the slug in baseUrl; check the slug/);
    } finally {
      await server.close();
    }
  });
});
