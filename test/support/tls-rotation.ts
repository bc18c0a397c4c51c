/**
 * The certificate rotation every adapter must survive, written once: a new
 * TLS connection sees the new certificate, a connection opened before keeps
 * working (with the certificate it was opened with).
 */
import type { LiveResource, LiveResourceEvent, TlsCertificate } from '@vane/client';
import type { VaneServer, VaneServerSeed } from '@vane/server';
import { makeCertificate, type TestCertificate } from './certificates.js';
import { freshTlsGet, tlsProbe } from './tls-probe.js';

/** The API key of the TLS seed's service. */
export const TLS_SERVICE_KEY = 'svs_edge_tls_rotation_key_0001';

/** A backend service `edge` holding a certificate and its key as file secrets. */
export function tlsSeed(certificate: TestCertificate): VaneServerSeed {
  return {
    services: {
      edge: {
        kind: 'backend',
        keys: [TLS_SERVICE_KEY],
        configs: {},
        secrets: {
          'tls.cert': { type: 'file', value: certificate.cert },
          'tls.key': { type: 'file', value: certificate.key },
        },
      },
    },
  };
}

function rebuilt(resource: LiveResource<TlsCertificate>, timeoutMs = 15_000): Promise<LiveResourceEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no rebuilt event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = resource.onEvent((e) => {
      if (e.type !== 'rebuilt') return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

/**
 * Rotates the certificate of the HTTPS app at `url` (a route answering 200)
 * through the local server, the key first: the build in between (new key,
 * old certificate) fails and the old certificate stays in service until the
 * new certificate arrives. Jest assertions inside.
 */
export async function rotateCertificate(
  server: VaneServer,
  url: string,
  certificate: LiveResource<TlsCertificate>,
  before: TestCertificate,
): Promise<void> {
  const after = await makeCertificate();
  const probe = tlsProbe();
  try {
    const opened = await probe.get(url);
    expect(opened).toMatchObject({ status: 200, fingerprint256: before.fingerprint256 });

    const swapped = rebuilt(certificate);
    server.admin.setSecret('edge', 'tls.key', after.key, 'file');
    server.admin.setSecret('edge', 'tls.cert', after.cert, 'file');
    await swapped;
    expect(certificate.current.cert).toBe(after.cert);

    // A new connection gets the new certificate…
    await expect(freshTlsGet(url)).resolves.toMatchObject({ status: 200, fingerprint256: after.fingerprint256 });
    // …and the connection opened before is still open, still serving, with the certificate it was opened with.
    await expect(probe.get(url)).resolves.toMatchObject({
      status: 200,
      reusedSocket: true,
      fingerprint256: before.fingerprint256,
    });
  } finally {
    probe.close();
  }
}
