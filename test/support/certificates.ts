/**
 * Self-signed TLS certificates for tests, made by `openssl` in a temp
 * directory (removed at once): PEM text and the SHA-256 fingerprint as Node
 * reports it for a peer (`getPeerCertificate().fingerprint256`). The one
 * place the suites make them: a test that needs files writes the PEM text.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** A certificate and its key. */
export interface TestCertificate {
  readonly cert: string;
  readonly key: string;
  /** `AA:BB:…`, as `tls.TLSSocket#getPeerCertificate().fingerprint256`. */
  readonly fingerprint256: string;
}

/**
 * A new self-signed EC certificate named `commonName` (its subject's CN), for
 * `localhost`, `*.localhost` (a service's host) and 127.0.0.1, valid one day.
 */
export async function makeCertificate(commonName = 'localhost'): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'vane-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=DNS:localhost,DNS:*.localhost,IP:127.0.0.1',
    ]);
    const pem = await readFile(cert, 'utf8');
    return { cert: pem, key: await readFile(key, 'utf8'), fingerprint256: new X509Certificate(pem).fingerprint256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
