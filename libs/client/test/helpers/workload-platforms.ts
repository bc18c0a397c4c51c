import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import type { VaneServerTrustInput } from '@vane/server';

/** A platform that signs identity JWTs with a key pair made in the test. */
export interface JwtPlatform {
  readonly issuer: string;
  readonly privateKey: KeyLike;
  readonly jwk: Record<string, unknown> & { kid: string };
  /** Signs an identity JWT. */
  sign(claims: { aud: string; sub: string; nowMs: number; lifetimeS?: number }): Promise<string>;
}

/** Makes a JWT platform with its own RS256 key pair. */
export async function jwtPlatform(issuer: string, kid: string): Promise<JwtPlatform> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const exported: JWK = await exportJWK(publicKey);
  const jwk = { ...exported, kid, alg: 'RS256' };
  return {
    issuer,
    privateKey,
    jwk,
    sign: ({ aud, sub, nowMs, lifetimeS = 3600 }) => {
      const now = Math.floor(nowMs / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(issuer)
        .setAudience(aud)
        .setSubject(sub)
        .setIssuedAt(now)
        .setExpirationTime(now + lifetimeS)
        .sign(privateKey);
    },
  };
}

/** A JWT trust of a platform, for the local server's seed. */
export function jwtTrust(
  provider: 'kubernetes' | 'gcp' | 'azure',
  platform: JwtPlatform,
  audience: string,
  subject: string,
  keyType: 'secret' | 'public' = 'secret',
): VaneServerTrustInput {
  return {
    provider,
    issuer: platform.issuer,
    audience,
    subjects: [subject],
    jwks: { keys: [platform.jwk] },
    key_type: keyType,
  };
}

/** One request a fake saw. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A loopback HTTP server with a swappable handler, recording every request. */
export class FakeHttpServer {
  readonly seen: SeenRequest[] = [];
  handler: (req: SeenRequest, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(404);
    res.end();
  };
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen = {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.seen.push(seen);
        this.handler(seen, res);
      });
    });
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts one on 127.0.0.1, on a free port. */
  static async start(): Promise<FakeHttpServer> {
    const fake = new FakeHttpServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** `127.0.0.1:<port>`. */
  get host(): string {
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://${this.host}`;
  }

  /** Requests seen on a path prefix. */
  count(pathPrefix: string): number {
    return this.seen.filter((r) => r.path.startsWith(pathPrefix)).length;
  }

  /** Stops it, cutting open connections (a never-answering handler leaves some). */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A loopback port on which nothing listens (connections are refused at once). */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

/** JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The credentials the fake STS knows: access key id → role session ARN. */
export const AWS_TEST_CREDENTIALS = {
  accessKeyId: 'AKIDVANETEST0000001',
  secretAccessKey: 'vane-test-secret-access-key-TOPSECRET',
  sessionToken: 'vane-test-session-token-TOPSECRET',
};

/**
 * A fake STS that verifies the SigV4 signature for real: it signs the same
 * request again with AWS's signer and the known test credentials, at the
 * request's own `x-amz-date`, and compares the `authorization` headers.
 */
export function stsHandler(
  fake: FakeHttpServer,
  region: string,
  arn: () => string,
): (req: SeenRequest, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      const authorization = String(req.headers.authorization ?? '');
      const amzDate = String(req.headers['x-amz-date'] ?? '');
      const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
      if (
        !authorization.startsWith('AWS4-HMAC-SHA256 Credential=') ||
        !match ||
        req.body !== 'Action=GetCallerIdentity&Version=2011-06-15'
      ) {
        res.writeHead(403, { 'content-type': 'text/xml' });
        res.end('<ErrorResponse><Error><Code>MissingAuthenticationToken</Code></Error></ErrorResponse>');
        return;
      }
      const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
      const headers: Record<string, string> = {};
      for (const name of signedHeaders) headers[name] = String(req.headers[name] ?? '');
      const signer = new SignatureV4({ credentials: AWS_TEST_CREDENTIALS, region, service: 'sts', sha256: Sha256 });
      const [, y, mo, d, h, mi, s] = match;
      const [hostname, port] = fake.host.split(':') as [string, string];
      const again = await signer.sign(
        {
          method: req.method,
          protocol: 'http:',
          hostname,
          port: Number(port),
          path: req.path,
          headers,
          body: req.body,
        },
        { signingDate: new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))) },
      );
      if (again.headers['authorization'] !== authorization) {
        res.writeHead(403, { 'content-type': 'text/xml' });
        res.end('<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code></Error></ErrorResponse>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>${arn()}</Arn><UserId>AROA:x</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`,
      );
    })();
  };
}

/** A temporary directory removed by `remove()`. */
export function tempDir(): { path: string; file(name: string, content: string): string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'vane-wi-'));
  return {
    path,
    file(name, content) {
      const file = join(path, name);
      writeFileSync(file, content);
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
