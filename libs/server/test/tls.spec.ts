import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificate, type TestCertificate } from '../../../test/support/certificates.js';
import { startVaneServer, type VaneServer } from '../src/index.js';
import { TEST_KEYS, testSeed, until, withTimeout } from '../src/testing/index.js';

/** The server's TLS files (certificate, key) in `dir`, holding `certificate`'s pair. */
function writeTlsFiles(dir: string, certificate: TestCertificate): { cert: string; key: string } {
  const live = { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
  writeFileSync(live.cert, certificate.cert);
  writeFileSync(live.key, certificate.key, { mode: 0o600 });
  return live;
}

/** Options of a request to the server over TLS; the test trusts any certificate and reads which one it got. */
function tlsRequest(server: VaneServer, path: string, headers: Record<string, string>, method = 'GET'): RequestOptions {
  return { host: '127.0.0.1', port: server.port, path, method, headers, rejectUnauthorized: false, agent: false };
}

/** The CN of the certificate a new connection is given. */
function servedCertificate(server: VaneServer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(tlsRequest(server, '/healthz', {}), (res) => {
      const subject = (res.socket as TLSSocket).getPeerCertificate().subject.CN;
      res.resume();
      res.on('end', () => resolve(String(subject)));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('native TLS (--tls-cert, --tls-key)', () => {
  let dir: string;
  let server: VaneServer;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-tls-'));
  });
  afterEach(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS, and reloads a renewed pair for new connections without dropping open streams', async () => {
    const [first, second] = await Promise.all([makeCertificate('first'), makeCertificate('second')]);
    const live = writeTlsFiles(dir, first);
    server = await startVaneServer({
      seed: testSeed(),
      tls: { certPath: live.cert, keyPath: live.key, watchIntervalMs: 50 },
    });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.baseUrl('shop')).toBe(`https://shop.localhost:${server.port}`);
    expect(await servedCertificate(server)).toBe('first');

    // A stream, open across the reload.
    let received = '';
    const stream = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        tlsRequest(server, '/v1/stream', {
          host: `shop.localhost:${server.port}`,
          'x-service-api-key': TEST_KEYS.shopSecret,
          accept: 'text/event-stream',
        }),
        resolve,
      );
      req.on('error', reject);
      req.end();
    });
    expect(stream.statusCode).toBe(200);
    stream.on('data', (chunk: Buffer) => (received += chunk.toString()));
    await until(() => received.includes('event: resync'), 'the first event');

    writeFileSync(live.key, second.key);
    writeFileSync(live.cert, second.cert);
    await until(async () => (await servedCertificate(server)) === 'second', 'the renewed certificate', {
      timeoutMs: 20_000,
    });

    server.admin.setConfig('shop', 'db.host', 'after-the-reload');
    await until(() => received.includes('after-the-reload'), 'the patch on the stream opened before the reload');
    expect(stream.destroyed).toBe(false);
    stream.destroy();
  });

  it('keeps the old pair when the new files do not load together', async () => {
    const [first, second] = await Promise.all([makeCertificate('first'), makeCertificate('second')]);
    const live = writeTlsFiles(dir, first);
    const warnings: string[] = [];
    server = await startVaneServer({
      seed: testSeed(),
      tls: { certPath: live.cert, keyPath: live.key, watchIntervalMs: 50 },
      logger: { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined },
    });
    writeFileSync(live.cert, second.cert); // the certificate renewed, its key not yet
    await until(() => warnings.length > 0, 'the failed reload', { timeoutMs: 20_000 });
    expect(warnings[0]).toMatch(/^could not reload TLS files, keeping the previous pair/);
    expect(await withTimeout(servedCertificate(server), 'a TLS answer')).toBe('first');
  });
});
