/**
 * The operating guide's (docs/operating.md) nginx blocks, as printed: each passes `nginx -t`
 * (with a generated certificate in place of the guide's files), and the
 * fleet block, in front of a server trusting nginx's address only, passes
 * each client's own address: a forged `X-Forwarded-For` is not believed,
 * and the wrong-token throttle counts each client on its own.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startVaneServer, type VaneServer } from '@vane/server';
import { testSeed } from '@vane/server/testing';
import { makeCertificate } from './support/certificates.js';
import { describeWithNginx, findNginx, startNginx, type TestNginx } from './support/nginx.js';
import { adaptNginxBlock, guideFleetBlock, guideNginxBlocks } from './support/readme-nginx.js';

describeWithNginx("the operating guide's nginx blocks", () => {
  let dir: string;
  let certPath: string;
  let keyPath: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vane-readme-nginx-'));
    const certificate = await makeCertificate('vane.acme.internal');
    certPath = join(dir, 'cert.pem');
    keyPath = join(dir, 'key.pem');
    await writeFile(certPath, certificate.cert);
    await writeFile(keyPath, certificate.key, { mode: 0o600 });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints at least the fleet block, and every block passes nginx -t with its listen lines as printed', async () => {
    const blocks = guideNginxBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    expect(guideFleetBlock()).toMatch(/ssl_certificate_key /);
    for (const [i, block] of blocks.entries()) {
      const config = join(dir, `readme-${i}.conf`);
      await writeFile(
        config,
        [
          `pid ${join(dir, `readme-${i}.pid`)};`,
          'events {}',
          'http {',
          adaptNginxBlock(block, { certPath, keyPath }),
          '}',
          '',
        ].join('\n'),
      );
      const tested = await promisify(execFile)(findNginx()!, [
        '-t',
        '-p',
        dir,
        '-e',
        join(dir, 'error.log'),
        '-c',
        config,
      ])
        .then(({ stderr }) => ({ ok: true, output: stderr }))
        .catch((error: { stderr?: string }) => ({ ok: false, output: error.stderr ?? String(error) }));
      expect(tested.output).toContain('test is successful');
      expect(tested.ok).toBe(true);
    }
  });

  describe('in front of a server that trusts only nginx (--trust-proxy 127.0.0.1)', () => {
    let server: VaneServer | undefined;
    let nginx: TestNginx | undefined;
    afterEach(async () => {
      await nginx?.stop();
      await server?.close();
    });

    /** One request through nginx from `localAddress` (127.0.0.2, 127.0.0.3…: each a client of its own). */
    const from = (
      localAddress: string,
      headers: Record<string, string>,
    ): Promise<{ status: number; retryAfter: string | undefined }> =>
      new Promise((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: nginx!.port,
            localAddress,
            path: '/admin/v1/services',
            headers: { host: `127.0.0.1:${nginx!.port}`, ...headers },
            agent: false,
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }),
            );
          },
        );
        req.setTimeout(20_000, () => req.destroy(new Error('no answer through nginx in 20 s')));
        req.on('error', reject);
        req.end();
      });

    it('a forged X-Forwarded-For is not believed; each client is throttled on its own address', async () => {
      server = await startVaneServer({
        seed: testSeed(),
        adminToken: 'readme-nginx-admin-token',
        trustProxy: ['127.0.0.1'],
        authThrottle: { freeFailures: 2, baseDelayMs: 60_000 },
      });
      // The guide's block: test/support/nginx.ts's default.
      nginx = await startNginx([server.port]);
      const right = { authorization: `Bearer ${server.adminToken}` };
      // Client X forges a new address with every wrong token: all of them count against 127.0.0.2.
      for (let i = 0; i < 4; i++) {
        const answer = await from('127.0.0.2', {
          authorization: 'Bearer wrong',
          'x-forwarded-for': `203.0.113.${i + 1}`,
        });
        expect([401, 429]).toContain(answer.status);
      }
      const locked = await from('127.0.0.2', { ...right, 'x-forwarded-for': '198.51.100.77' });
      expect(locked.status).toBe(429);
      expect(Number(locked.retryAfter)).toBeGreaterThan(0);
      // Client Y claims to be one of X's forged addresses: it is judged on its own, and let in.
      expect((await from('127.0.0.3', { ...right, 'x-forwarded-for': '203.0.113.1' })).status).toBe(200);
      expect((await from('127.0.0.3', right)).status).toBe(200);
    });
  });
});
