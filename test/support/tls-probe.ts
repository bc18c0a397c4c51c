/**
 * TLS from the client side, to see which certificate a server presents: on
 * a new connection, and on a keep-alive connection opened earlier.
 */
import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';

/** An answer over TLS, with the certificate the server presented on that connection. */
export interface TlsAnswer {
  readonly status: number;
  readonly body: string;
  /** SHA-256 fingerprint of the server's certificate, `AA:BB:…`. */
  readonly fingerprint256: string;
  /** True when the request went over a connection opened before it. */
  readonly reusedSocket: boolean;
}

/** A client with one keep-alive TLS connection (trusting any certificate: the tests compare fingerprints). */
export interface TlsProbe {
  get(url: string): Promise<TlsAnswer>;
  close(): void;
}

/** Sends requests over one connection kept open (`keepAlive`, one socket): a new one only once it is closed. */
export function tlsProbe(): TlsProbe {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  return {
    get: (url) =>
      new Promise((resolve, reject) => {
        const req = request(url, { agent, servername: 'localhost', timeout: 10_000 }, (res) => {
          // Read now: a keep-alive socket is detached from the response once it ends.
          const fingerprint256 = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body,
              fingerprint256,
              reusedSocket: req.reusedSocket,
            }),
          );
        });
        req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within 10 s`)));
        req.on('error', reject);
        req.end();
      }),
    close: () => agent.destroy(),
  };
}

/** One request on a connection of its own (what a new client sees). */
export async function freshTlsGet(url: string): Promise<TlsAnswer> {
  const probe = tlsProbe();
  try {
    return await probe.get(url);
  } finally {
    probe.close();
  }
}
