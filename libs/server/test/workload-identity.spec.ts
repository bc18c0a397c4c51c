import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { ManualClock, startVaneServer, type VaneServer, type VaneServerSeed } from '../src/index.js';
import { parseServerData } from '../src/seed/seed-parser.js';
import { serializeServerData } from '../src/persistence/state-serializer.js';
import { admin, call, openStream, type Answer } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const K8S_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const K8S_SUBJECT = 'system:serviceaccount:shop:api';
const GCP_ISSUER = 'https://accounts.google.com';
const AZURE_ISSUER = 'https://sts.windows.net/tenant-id/';
const ROLE = 'arn:aws:iam::123456789012:role/shop-api';

/** A platform that signs JWTs with its own key pair, made in the test. */
interface Platform {
  privateKey: KeyLike;
  jwk: Record<string, unknown> & { kid: string };
}

async function platform(kid: string): Promise<Platform> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const exported: JWK = await exportJWK(publicKey);
  const jwk = { ...exported, kid, alg: 'RS256', use: 'sig' };
  return { privateKey, jwk };
}

function platformJwt(
  p: Platform,
  claims: { iss: string; aud: string; sub: string; expSeconds?: number; nowMs?: number },
): Promise<string> {
  const now = Math.floor((claims.nowMs ?? T0) / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: p.jwk.kid })
    .setIssuer(claims.iss)
    .setAudience(claims.aud)
    .setSubject(claims.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expSeconds ?? 600))
    .sign(p.privateKey);
}

/** A loopback HTTP server answering with `handler`. */
async function fakeServer(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What the fake STS saw. */
const stsCalls: Array<{ headers: IncomingMessage['headers']; body: string; path: string }> = [];
let stsAnswer: { status: number; arn: string; json?: boolean } = {
  status: 200,
  arn: 'arn:aws:sts::123456789012:assumed-role/shop-api/i-0abc',
};

/** A signed GetCallerIdentity as a client encodes it (the fake STS checks the signature headers are there). */
function awsToken(
  stsUrl: string,
  overrides: { headers?: Record<string, string>; body?: string; url?: string; method?: string } = {},
): string {
  const url = overrides.url ?? `${stsUrl}/`;
  const host = new URL(url).host;
  const request = {
    method: overrides.method ?? 'POST',
    url,
    headers: {
      host,
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      'x-amz-date': '20261122T100000Z',
      'x-amz-security-token': 'session-token-value',
      'x-vane-audience': 'vane-shop',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261122/us-east-1/sts/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-vane-audience, Signature=abc123',
      ...overrides.headers,
    },
    body: overrides.body ?? 'Action=GetCallerIdentity&Version=2011-06-15',
  };
  return Buffer.from(JSON.stringify(request)).toString('base64');
}

let server: VaneServer;
let clock: ManualClock;
let k8s: Platform;
let gcp: Platform;
let azure: Platform;
let stranger: Platform;
let jwksHost: { server: Server; url: string };
let sts: { server: Server; url: string };

function seedWithTrusts(): VaneServerSeed {
  const seed = testSeed();
  seed.services!['shop']!.trusts = {
    cluster: {
      provider: 'kubernetes',
      issuer: K8S_ISSUER,
      audience: 'vane',
      subjects: [K8S_SUBJECT],
      jwks: { keys: [k8s.jwk] },
      key_type: 'secret',
    },
    frontend: {
      provider: 'gcp',
      issuer: GCP_ISSUER,
      audience: 'https://shop.vane.example',
      subjects: ['1234567890'],
      jwks: { keys: [gcp.jwk] },
      key_type: 'public',
    },
    vm: {
      provider: 'azure',
      issuer: AZURE_ISSUER,
      audience: 'api://vane',
      subjects: ['object-id-1'],
      jwks_url: `${jwksHost.url}/keys`,
      key_type: 'secret',
    },
    iam: { provider: 'aws', sts_endpoint: sts.url, role_arns: [ROLE], audience: 'vane-shop', key_type: 'secret' },
  };
  return seed;
}

beforeAll(async () => {
  [k8s, gcp, azure, stranger] = await Promise.all([
    platform('k8s-1'),
    platform('gcp-1'),
    platform('azure-1'),
    platform('k8s-1'),
  ]);
  jwksHost = await fakeServer((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [azure.jwk] }));
  });
  sts = await fakeServer((req, body, res) => {
    stsCalls.push({ headers: req.headers, body, path: req.url ?? '' });
    const signed =
      typeof req.headers.authorization === 'string' &&
      req.headers.authorization.startsWith('AWS4-HMAC-SHA256 Credential=') &&
      typeof req.headers['x-amz-date'] === 'string';
    if (!signed || stsAnswer.status !== 200) {
      res.writeHead(signed ? stsAnswer.status : 403, { 'content-type': 'text/xml' });
      res.end('<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code></Error></ErrorResponse>');
      return;
    }
    if (stsAnswer.json) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          GetCallerIdentityResponse: {
            GetCallerIdentityResult: { Arn: stsAnswer.arn, Account: '123456789012', UserId: 'AROA:i' },
          },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(
      `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>${stsAnswer.arn}</Arn><UserId>AROA:i</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`,
    );
  });
});

afterAll(async () => {
  await Promise.all([jwksHost, sts].map(({ server: s }) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

beforeEach(async () => {
  clock = new ManualClock(T0);
  stsCalls.length = 0;
  stsAnswer = { status: 200, arn: 'arn:aws:sts::123456789012:assumed-role/shop-api/i-0abc' };
  // The fake JWKS host and STS are on loopback: the operator's allow-list admits them.
  server = await startVaneServer({
    seed: seedWithTrusts(),
    clock,
    sessionTtlMs: 900_000,
    allowOutbound: [jwksHost.url, sts.url],
  });
});

afterEach(async () => {
  await server.close();
});

/** `POST /v1/auth/token-exchange` on `target` (the test's server unless given). */
function exchange(slug: string, provider: string, token: unknown, target: VaneServer = server): Promise<Answer> {
  return call(target, { method: 'POST', path: '/v1/auth/token-exchange', slug, body: { provider, token } });
}

async function session(provider = 'kubernetes', token?: string): Promise<string> {
  const platformToken = token ?? (await platformJwt(k8s, { iss: K8S_ISSUER, aud: 'vane', sub: K8S_SUBJECT }));
  const answer = await exchange('shop', provider, platformToken);
  expect(answer.status).toBe(200);
  return answer.json<{ token: string }>().token;
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

describe('POST /v1/auth/token-exchange', () => {
  it('exchanges a Kubernetes service-account JWT for a session that expires after sessionTtlMs', async () => {
    const token = await platformJwt(k8s, { iss: K8S_ISSUER, aud: 'vane', sub: K8S_SUBJECT });
    const answer = await exchange('shop', 'kubernetes', token);
    expect(answer.status).toBe(200);
    const body = answer.json<{ token: string; expires_at: string }>();
    expect(body.expires_at).toBe('2026-11-22T10:15:00Z');
    expect(body.token.split('.')).toHaveLength(3);
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'token']);
  });

  it('exchanges a GCP identity token, and an Azure token verified against a JWKS fetched from a URL', async () => {
    const gcpToken = await platformJwt(gcp, { iss: GCP_ISSUER, aud: 'https://shop.vane.example', sub: '1234567890' });
    expect((await exchange('shop', 'gcp', gcpToken)).status).toBe(200);
    const azureToken = await platformJwt(azure, { iss: AZURE_ISSUER, aud: 'api://vane', sub: 'object-id-1' });
    expect((await exchange('shop', 'azure', azureToken)).status).toBe(200);
  });

  it.each([
    ['a foreign signing key', () => platformJwt(stranger, { iss: K8S_ISSUER, aud: 'vane', sub: K8S_SUBJECT })],
    ['another issuer', () => platformJwt(k8s, { iss: 'https://evil.example', aud: 'vane', sub: K8S_SUBJECT })],
    ['another audience', () => platformJwt(k8s, { iss: K8S_ISSUER, aud: 'other', sub: K8S_SUBJECT })],
    [
      'a subject not allowed',
      () => platformJwt(k8s, { iss: K8S_ISSUER, aud: 'vane', sub: 'system:serviceaccount:shop:intruder' }),
    ],
    [
      'an expired token',
      () => platformJwt(k8s, { iss: K8S_ISSUER, aud: 'vane', sub: K8S_SUBJECT, nowMs: T0 - 3_600_000, expSeconds: 60 }),
    ],
    [
      'a token of another provider trust',
      () => platformJwt(gcp, { iss: GCP_ISSUER, aud: 'https://shop.vane.example', sub: '1234567890' }),
    ],
    ['garbage', async () => 'not.a.jwt'],
  ])('refuses %s with 401, never echoing the token', async (_name, make) => {
    const token = await make();
    const answer = await exchange('shop', 'kubernetes', token);
    expect(answer.status).toBe(401);
    expect(answer.json()['error']).toBe('unauthorized');
    expect(answer.text).not.toContain(token);
  });

  it('answers 401 when the service trusts no identity of that provider, 404 for an unknown slug, 400 for a bad body', async () => {
    const token = await platformJwt(k8s, { iss: K8S_ISSUER, aud: 'vane', sub: K8S_SUBJECT });
    expect((await exchange('other', 'kubernetes', token)).status).toBe(401);
    expect((await exchange('nope', 'kubernetes', token)).status).toBe(404);
    expect((await exchange('shop', 'heroku', token)).status).toBe(400);
    expect((await exchange('shop', 'kubernetes', 42)).status).toBe(400);
    expect((await exchange('shop', 'kubernetes', '')).status).toBe(400);
    expect((await call(server, { method: 'GET', path: '/v1/auth/token-exchange', slug: 'shop' })).status).toBe(404);
  });

  describe('aws', () => {
    it('forwards the signed GetCallerIdentity to the configured STS and maps the assumed role to its role', async () => {
      const answer = await exchange('shop', 'aws', awsToken(sts.url));
      expect(answer.status).toBe(200);
      expect(stsCalls).toHaveLength(1);
      expect(stsCalls[0]!.body).toBe('Action=GetCallerIdentity&Version=2011-06-15');
      expect(stsCalls[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=/);
      expect(stsCalls[0]!.headers['x-amz-security-token']).toBe('session-token-value');
      expect(stsCalls[0]!.headers.host).toBe(new URL(sts.url).host);
    });

    it('reads a JSON answer of STS too', async () => {
      stsAnswer = { status: 200, arn: 'arn:aws:sts::123456789012:assumed-role/shop-api/pod', json: true };
      expect((await exchange('shop', 'aws', awsToken(sts.url))).status).toBe(200);
    });

    it.each([
      [
        'a role not allowed',
        () => {
          stsAnswer.arn = 'arn:aws:sts::123456789012:assumed-role/other-role/x';
        },
        () => awsToken(sts.url),
      ],
      [
        'the same role name in another account',
        () => {
          stsAnswer.arn = 'arn:aws:sts::999999999999:assumed-role/shop-api/x';
        },
        () => awsToken(sts.url),
      ],
      [
        'STS refusing the signature',
        () => {
          stsAnswer.status = 403;
        },
        () => awsToken(sts.url),
      ],
      [
        'a request signed for another STS host',
        () => undefined,
        () => awsToken(sts.url, { url: 'https://sts.amazonaws.com/' }),
      ],
      [
        'another action than GetCallerIdentity',
        () => undefined,
        () => awsToken(sts.url, { body: 'Action=AssumeRole&RoleArn=x' }),
      ],
      ['an unsigned request', () => undefined, () => awsToken(sts.url, { headers: { authorization: '' } })],
      [
        'a request without the trust audience',
        () => undefined,
        () => awsToken(sts.url, { headers: { 'x-vane-audience': 'other' } }),
      ],
      ['a token that is not base64 JSON', () => undefined, () => '%%%'],
    ])('refuses %s with 401', async (_name, arrange, token) => {
      arrange();
      const answer = await exchange('shop', 'aws', token());
      expect(answer.status).toBe(401);
      expect(answer.text).not.toContain('abc123');
    });
  });
});

describe('a session as Authorization: Bearer', () => {
  it('is accepted on sync, stream, evaluate-ab and secret writes, with the trust key type', async () => {
    const token = await session();
    const sync = await call(server, { path: '/v1/sync', slug: 'shop', headers: bearer(token) });
    expect(sync.status).toBe(200);
    expect(sync.json<{ secrets: Record<string, unknown> }>().secrets).not.toEqual({});
    const ab = await call(server, {
      method: 'POST',
      path: '/v1/flags/evaluate-ab',
      slug: 'shop',
      headers: bearer(token),
      body: { keys: ['new-checkout'], user_id: 'u1' },
    });
    expect(ab.status).toBe(200);
    const write = await call(server, {
      method: 'PUT',
      path: '/v1/secrets/wi.secret',
      slug: 'shop',
      headers: bearer(token),
      body: { value: 'v', type: 'text' },
    });
    expect(write.status).toBe(200);
    expect(server.admin.audit('shop').at(-1)).toMatchObject({
      action: 'secret.set',
      key: 'wi.secret',
      actor: 'workload:cluster',
    });
    const stream = await openStream(server, { slug: 'shop', bearer: token });
    try {
      expect(stream.status).toBe(200);
    } finally {
      stream.close();
    }
  });

  it('from a public trust obeys the public-key rules: no secrets served, no secret writes', async () => {
    const token = await session(
      'gcp',
      await platformJwt(gcp, { iss: GCP_ISSUER, aud: 'https://shop.vane.example', sub: '1234567890' }),
    );
    const sync = await call(server, { path: '/v1/sync', slug: 'shop', headers: bearer(token) });
    expect(sync.status).toBe(200);
    const publicSync = await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopPublic });
    expect(sync.json()['secrets']).toEqual(publicSync.json()['secrets']);
    const write = await call(server, {
      method: 'PUT',
      path: '/v1/secrets/wi.secret',
      slug: 'shop',
      headers: bearer(token),
      body: { value: 'v', type: 'text' },
    });
    expect(write.status).toBe(401);
  });

  it('is refused once expired (401), on every route', async () => {
    const token = await session();
    clock.advance(899_000);
    expect((await call(server, { path: '/v1/sync', slug: 'shop', headers: bearer(token) })).status).toBe(200);
    clock.advance(1_000);
    const expired = await call(server, { path: '/v1/sync', slug: 'shop', headers: bearer(token) });
    expect(expired.status).toBe(401);
    expect(expired.json()['error']).toBe('unauthorized');
    expect((await openStream(server, { slug: 'shop', bearer: token })).status).toBe(401);
    expect(
      (
        await call(server, {
          method: 'DELETE',
          path: '/v1/secrets/stripe.api_key',
          slug: 'shop',
          headers: bearer(token),
        })
      ).status,
    ).toBe(401);
  });

  it('ends a stream opened with a session when the session expires', async () => {
    const token = await session();
    const stream = await openStream(server, { slug: 'shop', bearer: token });
    expect(stream.status).toBe(200);
    await stream.event(1);
    clock.advance(899_999);
    expect(stream.ended).toBe(false);
    clock.advance(1);
    await stream.waitForEnd();
    expect(stream.ended).toBe(true);
  });

  it('refuses forged sessions: tampered payload, another signing key, alg none', async () => {
    const token = await session();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, vane_key_type: 'secret', sub: 'root' })).toString('base64url')}.${signature}`;
    const otherKey = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32).fill(7));
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    for (const forged of [tampered, otherKey, none, 'garbage']) {
      const answer = await call(server, { path: '/v1/sync', slug: 'shop', headers: bearer(forged) });
      expect(answer.status).toBe(401);
    }
  });

  it('issued for one service is refused by another (401)', async () => {
    const token = await session();
    expect((await call(server, { path: '/v1/sync', slug: 'other', headers: bearer(token) })).status).toBe(401);
  });

  it('ends with its trust: deleting the trust refuses the session and ends its open streams', async () => {
    const token = await session();
    const stream = await openStream(server, { slug: 'shop', bearer: token });
    expect((await admin(server, 'DELETE', '/services/shop/trusts/cluster')).status).toBe(200);
    await stream.waitForEnd();
    expect((await call(server, { path: '/v1/sync', slug: 'shop', headers: bearer(token) })).status).toBe(401);
  });

  it('a static key still wins when both headers are sent', async () => {
    const answer = await call(server, {
      path: '/v1/sync',
      slug: 'shop',
      key: TEST_KEYS.shopSecret,
      headers: bearer('garbage'),
    });
    expect(answer.status).toBe(200);
  });
});

describe('trust configuration', () => {
  it('is managed through the admin API (PUT, GET, DELETE), validated with JSON paths', async () => {
    const put = await admin(server, 'PUT', '/services/other/trusts/eks', {
      provider: 'aws',
      role_arns: ['arn:aws:iam::123456789012:role/other'],
      key_type: 'public',
    });
    expect(put.status).toBe(200);
    expect(put.json()).toEqual({
      revision: server.revision('other'),
      name: 'eks',
      trust: {
        provider: 'aws',
        sts_endpoint: 'https://sts.amazonaws.com',
        role_arns: ['arn:aws:iam::123456789012:role/other'],
        key_type: 'public',
      },
    });
    const list = await admin(server, 'GET', '/services/other/trusts');
    expect(Object.keys(list.json<{ trusts: object }>().trusts)).toEqual(['eks']);
    const bad = await admin(server, 'PUT', '/services/other/trusts/k', {
      provider: 'kubernetes',
      issuer: 'i',
      audience: 'a',
      subjects: [],
      jwks_url: 'https://x',
      key_type: 'secret',
    });
    expect(bad.status).toBe(400);
    expect(bad.json()['message']).toContain('trust.subjects');
    const both = await admin(server, 'PUT', '/services/other/trusts/k', {
      provider: 'gcp',
      issuer: 'i',
      audience: 'a',
      subjects: ['s'],
      key_type: 'root',
    });
    expect(both.status).toBe(400);
    expect(both.json()['message']).toContain('trust.key_type');
    const symmetric = await admin(server, 'PUT', '/services/other/trusts/k', {
      provider: 'gcp',
      issuer: 'i',
      audience: 'a',
      subjects: ['s'],
      jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
      key_type: 'secret',
    });
    expect(symmetric.status).toBe(400);
    expect(symmetric.json()['message']).toContain('trust.jwks.keys[0]: a JWKS for verification holds public keys only');
    expect((await admin(server, 'DELETE', '/services/other/trusts/nope')).status).toBe(404);
    expect((await admin(server, 'DELETE', '/services/other/trusts/eks')).status).toBe(200);
    expect((await call(server, { method: 'PUT', path: '/admin/v1/services/other/trusts/x', body: {} })).status).toBe(
      401,
    );
  });

  it('is managed in process too, and a trust added later is used by the next exchange', async () => {
    server.admin.putTrust('other', 'cluster', {
      provider: 'kubernetes',
      issuer: K8S_ISSUER,
      audience: 'vane',
      subjects: [K8S_SUBJECT],
      jwks: { keys: [k8s.jwk] },
      key_type: 'public',
    });
    const token = await platformJwt(k8s, { iss: K8S_ISSUER, aud: 'vane', sub: K8S_SUBJECT });
    expect((await exchange('other', 'kubernetes', token)).status).toBe(200);
    server.admin.deleteTrust('other', 'cluster');
    expect((await exchange('other', 'kubernetes', token)).status).toBe(401);
  });

  it('a seed with a broken trust stops the start with the JSON path', async () => {
    const seed = seedWithTrusts();
    (seed.services!['shop']!.trusts!['cluster'] as { jwks_url?: string }).jwks_url = 'ftp://x';
    await expect(startVaneServer({ seed })).rejects.toThrow(
      'services.shop.trusts.cluster: give exactly one of "jwks" (an inline key set) and "jwks_url"',
    );
    const seed2 = seedWithTrusts();
    (seed2.services!['shop']!.trusts!['iam'] as { role_arns: string[] }).role_arns = ['shop-api'];
    await expect(startVaneServer({ seed: seed2 })).rejects.toThrow(
      'services.shop.trusts.iam.role_arns[0]: must be an IAM role or user ARN',
    );
    const seed3 = seedWithTrusts();
    seed3.services!['shop']!.trusts!['cluster']!.key_type = 'admin' as 'secret';
    await expect(startVaneServer({ seed: seed3 })).rejects.toThrow(
      'services.shop.trusts.cluster.key_type: must be "secret" or "public"',
    );
  });

  it('round-trips through the state file', async () => {
    const data = parseServerData(seedWithTrusts(), 'seed');
    const again = parseServerData(serializeServerData(data), 'state');
    expect(again.services.get('shop')!.trusts).toEqual(data.services.get('shop')!.trusts);
    expect(again.services.get('other')!.trusts.size).toBe(0);
    expect(serializeServerData(again)).toEqual(serializeServerData(data));
  });

  it('persists trusts set through the admin API across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vane-trust-'));
    try {
      const statePath = join(dir, 'state.json');
      const first = await startVaneServer({ seed: testSeed(), statePath, clock });
      first.admin.putTrust('shop', 'eks', {
        provider: 'aws',
        role_arns: [ROLE],
        key_type: 'secret',
        sts_endpoint: sts.url,
      });
      await first.close();
      expect(JSON.parse(readFileSync(statePath, 'utf8')).services.shop.trusts.eks.role_arns).toEqual([ROLE]);
      const second = await startVaneServer({ statePath, clock, allowOutbound: [sts.url] });
      try {
        const answer = await exchange('shop', 'aws', awsToken(sts.url), second);
        expect(answer.status).toBe(200);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('outbound requests only where the operator allows (issue #47 item 4)', () => {
  const putTrust = (target: VaneServer, name: string, trust: Record<string, unknown>): Promise<Answer> =>
    admin(target, 'PUT', `/services/shop/trusts/${name}`, trust);
  const aws = (endpoint: string) => ({
    provider: 'aws',
    sts_endpoint: endpoint,
    role_arns: [ROLE],
    key_type: 'public',
  });
  const azureAt = (url: string) => ({
    provider: 'azure',
    issuer: AZURE_ISSUER,
    audience: 'api://vane',
    subjects: ['object-id-1'],
    jwks_url: url,
    key_type: 'public',
  });

  it.each([
    ['plain http', 'http://sts.example.com'],
    ['loopback', 'https://127.0.0.1:8443'],
    ['loopback, IPv6', 'https://[::1]:8443'],
    ['loopback, IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/'],
    ['the cloud metadata service (link-local)', 'https://169.254.169.254/latest/meta-data'],
    ['a private network', 'https://10.1.2.3'],
    ['a unique-local address', 'https://[fd12:3456::1]/'],
  ])('refuses a token setting %s as a trust URL (400), for STS and JWKS alike', async (_name, url) => {
    for (const trust of [aws(url), azureAt(url)]) {
      const answer = await putTrust(server, 'outbound', trust);
      expect([url, answer.status, answer.json()['error']]).toEqual([url, 400, 'invalid_request']);
    }
    expect((await admin(server, 'GET', '/services/shop/trusts')).json<{ trusts: object }>().trusts).not.toHaveProperty(
      'outbound',
    );
  });

  it('checks the address connected to: a name resolving to loopback is refused at the request, and STS never called', async () => {
    const port = new URL(sts.url).port;
    // Passes the check of the URL (https, a name), but localhost resolves to a loopback address.
    expect((await putTrust(server, 'iam', aws(`https://localhost:${port}`))).status).toBe(200);
    const answer = await exchange('shop', 'aws', awsToken(`https://localhost:${port}`));
    expect(answer.status).toBe(401);
    expect(stsCalls).toHaveLength(0);
  });

  it('refuses what an operator seeded too unless it is admitted, and never follows a redirect', async () => {
    const unlisted = await startVaneServer({ seed: seedWithTrusts(), clock });
    try {
      const answer = await exchange('shop', 'aws', awsToken(sts.url), unlisted);
      expect(answer.status).toBe(401);
      expect(stsCalls).toHaveLength(0);
    } finally {
      await unlisted.close();
    }
    // An admitted JWKS host that redirects to another loopback server: the redirect is an answer, not a hop.
    const seen: string[] = [];
    const target = await fakeServer((req, _body, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [azure.jwk] }));
    });
    const redirecting = await fakeServer((_req, _body, res) => {
      res.writeHead(302, { location: `${target.url}/keys` });
      res.end();
    });
    const admitted = await startVaneServer({ seed: testSeed(), clock, allowOutbound: [redirecting.url, target.url] });
    try {
      expect((await putTrust(admitted, 'vm', azureAt(`${redirecting.url}/keys`))).status).toBe(200);
      const token = await platformJwt(azure, { iss: AZURE_ISSUER, aud: 'api://vane', sub: 'object-id-1' });
      const answer = await exchange('shop', 'azure', token, admitted);
      expect(answer.status).toBe(401);
      expect(seen).toEqual([]);
    } finally {
      await admitted.close();
      await Promise.all(
        [target, redirecting].map(({ server: s }) => new Promise<void>((resolve) => s.close(() => resolve()))),
      );
    }
  });
});
