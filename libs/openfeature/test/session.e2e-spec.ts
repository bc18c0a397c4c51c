import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { ManualClock, startVaneServer, type VaneServer, type VaneServerTrustInput } from '@vane/server';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { VaneProvider } from '../src/index.js';
import { testSeed } from './support/seed.js';
import { nextEvent } from './support/wait.js';

// A Kubernetes service account token, signed by a key pair of this test, exchanged at the local
// server for a workload-identity session. The server's clock is manual, so the session expires on demand.
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SUBJECT = 'system:serviceaccount:shop:api';
const SESSION_TTL_MS = 600_000;

let server: VaneServer;
let clock: ManualClock;
let trust: VaneServerTrustInput;
let token: string;
let dir: string;
let provider: VaneProvider;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k8s-1', alg: 'RS256' };
  trust = {
    provider: 'kubernetes',
    issuer: ISSUER,
    audience: 'vane',
    subjects: [SUBJECT],
    jwks: { keys: [jwk] },
    key_type: 'secret',
  };
  const seed = testSeed();
  seed.services!['shop']!.trusts = { cluster: trust };
  // The client's clock is the system clock: start the server's there too, so both agree on the session's expiry.
  clock = new ManualClock(Date.now());
  server = await startVaneServer({ seed, port: 0, clock, sessionTtlMs: SESSION_TTL_MS });
  const now = Math.floor(clock.now() / 1000);
  token = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: 'k8s-1' })
    .setIssuer(ISSUER)
    .setAudience('vane')
    .setSubject(SUBJECT)
    .setIssuedAt(now)
    .setExpirationTime(now + 86_400)
    .sign(privateKey);
  dir = mkdtempSync(join(tmpdir(), 'vane-openfeature-'));
  const tokenPath = join(dir, 'token');
  writeFileSync(tokenPath, token, { mode: 0o600 });
  provider = new VaneProvider({
    baseUrl: server.baseUrl('shop'),
    workloadIdentity: { provider: 'kubernetes', audience: 'vane', kubernetesTokenPath: tokenPath },
    stream: false,
    logger: { warn: () => undefined, error: () => undefined },
    abFlags: 'all',
  });
  await OpenFeature.setProviderAndWait(provider);
});

afterAll(async () => {
  await OpenFeature.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

it('Error when the session expires and cannot be renewed, cached values still served; Ready once a new session is in use', async () => {
  const client = OpenFeature.getClient();
  const user = { targetingKey: 'user-1', plan: 'pro' };
  await expect(client.getBooleanDetails('dark-mode', false, user)).resolves.toMatchObject({
    value: true,
    reason: 'TARGETING_MATCH',
  });

  // The session outlives its TTL on the server, and the trust that could renew it is gone.
  clock.advance(SESSION_TTL_MS);
  server.admin.deleteTrust('shop', 'cluster');
  const error = nextEvent(provider, ProviderEvents.Error);
  // Another user: the first one's answer is cached (same revision) and would be served without a call.
  const failed = await client.getBooleanDetails('dark-mode', false, { ...user, targetingKey: 'user-2' });
  expect(failed).toMatchObject({
    value: false,
    errorCode: ErrorCode.GENERAL,
    flagMetadata: { vaneErrorCode: 'VANE_SESSION_EXPIRED' },
  });
  const details = await error;
  expect(details).toMatchObject({
    message: expect.stringMatching(/^VANE_SESSION_EXPIRED: /),
    metadata: { vaneErrorCode: 'VANE_SESSION_EXPIRED' },
  });
  expect(client.providerStatus).toBe('ERROR');
  expect(JSON.stringify([details, failed])).not.toContain(token);
  // The cache keeps serving.
  await expect(client.getStringDetails('greeting.text', 'none', { plan: 'pro' })).resolves.toMatchObject({
    value: 'Hello',
    reason: 'STATIC',
  });

  server.admin.putTrust('shop', 'cluster', trust);
  const ready = nextEvent(provider, ProviderEvents.Ready);
  // The failure was not cached: this asks the service again, with a new session.
  await expect(
    client.getBooleanDetails('dark-mode', false, { ...user, targetingKey: 'user-2' }),
  ).resolves.toMatchObject({
    value: true,
    reason: 'TARGETING_MATCH',
  });
  await ready;
  expect(client.providerStatus).toBe('READY');
});
