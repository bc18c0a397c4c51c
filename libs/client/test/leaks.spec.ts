import { createServer, get as httpGet, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneClient } from '../src/index.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { SHOP_SK, seed } from './helpers/seed.js';
import { until } from '@vane/server/testing';

/**
 * A hostile service: every answer the client cannot use quotes back what the
 * client sent (its key header, its body). Syncs are served by the local
 * server behind it. Nothing the client sent may come out in an error (message,
 * `toString()`, `util.inspect` with its cause chain) or a log line.
 */
const WRITTEN = 'rk_live_WRITTEN_SECRET_VALUE';
const SHORT = 'xy!';

let local: VaneServer;
let hostile: Server;
let baseUrl: string;
let logger: MemoryLogger;
let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void;

beforeAll(async () => {
  local = await startVaneServer({ seed: seed(), port: 0 });
  hostile = createServer((req, res) => {
    res.setHeader('vane-protocol', '1'); // hostile, but a Vane service: its errors are read as such
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/v1/sync') {
        const headers = { host: req.headers.host!, 'x-service-api-key': String(req.headers['x-service-api-key']) };
        httpGet({ host: '127.0.0.1', port: local.port, path: '/v1/sync', headers }, (r) => {
          res.writeHead(r.statusCode!, {
            'content-type': 'application/json',
            ...(r.headers.etag ? { etag: r.headers.etag } : {}),
          });
          r.pipe(res);
        });
        return;
      }
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://shop.localhost:${(hostile.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => hostile.close(() => resolve()));
  await local.close();
});

beforeEach(() => {
  logger = new MemoryLogger();
});

function echo(status: number) {
  return (req: IncomingMessage, body: string, res: ServerResponse): void => {
    const key = String(req.headers['x-service-api-key']);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: 'invalid_request',
        message: `refused ${req.method} with key ${key} and body ${body}; value was "${WRITTEN}"`,
      }),
    );
  };
}

function exposed(error: unknown): string {
  return [
    String(error),
    inspect(error, { depth: 20, showHidden: true }),
    JSON.stringify(error),
    (error as Error).message,
  ].join('\n');
}

it.each([400, 401, 403, 404, 413, 429, 500, 503])(
  'a secret write answered %i quoting the key and the value leaks neither',
  async (status) => {
    answer = echo(status);
    const client = await VaneClient.create({ baseUrl, apiKey: SHOP_SK, logger, stream: false });
    try {
      const error = await client.setSecret('s', WRITTEN).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      const text = exposed(error);
      expect(text).not.toContain(SHOP_SK);
      expect(text).not.toContain('WRITTEN_SECRET');
      expect(text).toContain('[redacted]');
    } finally {
      await client.close();
    }
    expect(logger.text()).not.toMatch(/svs_shop_e2e_secret_key_000001|WRITTEN_SECRET|TOPSECRET/);
  },
);

it('a value too short to redact: the quoting server message is dropped', async () => {
  answer = (_req, _body, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'invalid_request', message: `value "${SHORT}" is too short` }));
  };
  const client = await VaneClient.create({ baseUrl, apiKey: SHOP_SK, logger, stream: false });
  try {
    const error = await client.setSecret('s', SHORT).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('VANE_UNEXPECTED_RESPONSE');
    expect(exposed(error)).not.toContain(SHORT);
  } finally {
    await client.close();
  }
});

it('a stream answered with errors quoting the key logs no key', async () => {
  answer = echo(500);
  const client = await VaneClient.create({ baseUrl, apiKey: SHOP_SK, logger, backoffMinMs: 5, backoffMaxMs: 10 });
  try {
    await until(() => logger.text().includes('stream'), 'a stream failure in the log');
    expect(logger.text()).toContain('stream');
  } finally {
    await client.close();
  }
  expect(logger.text()).toContain('svs_…0001');
  expect(logger.text()).not.toMatch(/svs_shop_e2e_secret_key_000001|TOPSECRET/);
});
