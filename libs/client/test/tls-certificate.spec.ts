import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startVaneServer, type VaneServer } from '@vane/server';
import {
  keepSecureContextCurrent,
  tlsCertificate,
  VaneClient,
  type LiveResource,
  type LiveResourceEvent,
} from '../src/index.js';
import { InvalidArgumentError } from '../src/errors.js';
import { makeCertificate, type TestCertificate } from '../../../test/support/certificates.js';
import { freshTlsGet } from '../../../test/support/tls-probe.js';
import { MemoryLogger } from './helpers/fake-transport.js';

const SK = 'svs_tls_text_secrets_key_00001';

let server: VaneServer;
let client: VaneClient;
let https: Server;
let logger: MemoryLogger;
let one: TestCertificate;
let two: TestCertificate;

beforeAll(async () => {
  [one, two] = await Promise.all([makeCertificate(), makeCertificate()]);
}, 30_000);

beforeEach(async () => {
  server = await startVaneServer({
    seed: {
      services: {
        edge: {
          kind: 'backend',
          keys: [SK],
          secrets: {
            'tls.cert_pem': { type: 'text', value: one.cert },
            'tls.key_pem': { type: 'text', value: one.key },
          },
        },
      },
    },
    port: 0,
  });
  logger = new MemoryLogger();
  client = await VaneClient.create({ baseUrl: server.baseUrl('edge'), apiKey: SK, logger });
});

afterEach(async () => {
  await new Promise<void>((resolve) => {
    if (!https?.listening) return resolve();
    https.close(() => resolve());
    https.closeAllConnections();
  });
  await client.close();
  await server.close();
  // No PEM, certificate or key, in anything logged.
  for (const pem of [one.key, two.key, one.cert, two.cert]) expect(logger.text()).not.toContain(pem.split('\n')[1]!);
});

function next(
  type: LiveResourceEvent['type'],
  resource: Pick<LiveResource<unknown>, 'onEvent'>,
): Promise<LiveResourceEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${type} event within 5 s`));
    }, 5000);
    const off = resource.onEvent((e) => {
      if (e.type !== type) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

async function listen(): Promise<string> {
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(https.address() as AddressInfo).port}/`;
}

describe('tlsCertificate and keepSecureContextCurrent', () => {
  it('serve the certificate from text secrets, and keep the one in service when a key does not match', async () => {
    const tls = await client.liveResource(
      tlsCertificate({
        cert: { secret: 'tls.cert_pem' },
        key: { secret: 'tls.key_pem' },
        context: { minVersion: 'TLSv1.2' },
      }),
    );
    expect(tls.name).toBe('tls');
    expect(tls.current).toMatchObject({ cert: one.cert, key: one.key, minVersion: 'TLSv1.2' });
    https = createServer((_req, res) => res.end('ok'));
    keepSecureContextCurrent(https, tls);
    const url = await listen();
    await expect(freshTlsGet(url)).resolves.toMatchObject({ status: 200, fingerprint256: one.fingerprint256 });

    // A key that is not the certificate's: the build fails, the certificate in service stays.
    const failed = next('rebuild-failed', tls);
    server.admin.setSecret('edge', 'tls.key_pem', two.key);
    const failure = await failed;
    expect(failure).toMatchObject({ error: { code: 'VANE_LIVE_RESOURCE_BUILD_FAILED', stage: 'create' } });
    expect(tls.current.key).toBe(one.key);
    await expect(freshTlsGet(url)).resolves.toMatchObject({ fingerprint256: one.fingerprint256 });

    // The matching certificate arrives: the pair is swapped in.
    const rebuilt = next('rebuilt', tls);
    server.admin.setSecret('edge', 'tls.cert_pem', two.cert);
    await rebuilt;
    await expect(freshTlsGet(url)).resolves.toMatchObject({ fingerprint256: two.fingerprint256 });
  }, 30_000);

  it('stop following the resource when told', async () => {
    const tls = await client.liveResource(
      tlsCertificate({ cert: { secret: 'tls.cert_pem' }, key: { secret: 'tls.key_pem' } }),
    );
    https = createServer((_req, res) => res.end('ok'));
    const stop = keepSecureContextCurrent(https, tls);
    const url = await listen();
    stop();
    const rebuilt = next('rebuilt', tls);
    server.admin.setSecret('edge', 'tls.key_pem', two.key);
    server.admin.setSecret('edge', 'tls.cert_pem', two.cert);
    await rebuilt;
    await expect(freshTlsGet(url)).resolves.toMatchObject({ fingerprint256: one.fingerprint256 });
  }, 30_000);

  it('refuse a source that is neither a text nor a file secret', () => {
    expect(() => tlsCertificate({ cert: { secret: 'a', file: 'b' } as never, key: { file: 'k' } })).toThrow(
      InvalidArgumentError,
    );
    expect(() => tlsCertificate({ cert: { file: 'c' }, key: {} as never })).toThrow(
      "tlsCertificate: key must be { secret: 'key' } or { file: 'key' }",
    );
    expect(
      tlsCertificate({ cert: { file: 'c' }, key: { secret: 'k' }, ca: { file: 'ca' }, name: 'edge' }),
    ).toMatchObject({
      name: 'edge',
      secrets: ['k'],
      secretFiles: ['c', 'ca'],
    });
  });
});
