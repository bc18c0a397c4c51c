import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { VaneClient, type WorkloadIdentityOptions } from '@vane/client';
import { createVane } from '@vane/express';
import { startVaneServer, type VaneServer } from '@vane/server';
import { VaneModule } from '@vane/nestjs';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

// The Nest module and the Express twin take the client's options: `workloadIdentity`
// reaches the client unchanged. Every endpoint is on loopback or in a temp dir.
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SUBJECT = 'system:serviceaccount:shop:api';

let server: VaneServer;
let dir: string;
let workloadIdentity: WorkloadIdentityOptions;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  server = await startVaneServer({
    seed: {
      services: {
        shop: {
          configs: { 'db.host': 'db.internal' },
          trusts: {
            cluster: {
              provider: 'kubernetes',
              issuer: ISSUER,
              audience: 'vane',
              subjects: [SUBJECT],
              jwks: { keys: [jwk] },
              key_type: 'secret',
            },
          },
        },
      },
    },
  });
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience('vane')
    .setSubject(SUBJECT)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(privateKey);
  dir = mkdtempSync(join(tmpdir(), 'vane-wi-pass-'));
  const tokenPath = join(dir, 'token');
  writeFileSync(tokenPath, token);
  workloadIdentity = { provider: 'kubernetes', audience: 'vane', kubernetesTokenPath: tokenPath, env: {} };
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

it('VaneModule.forRoot passes workloadIdentity to the client', async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VaneModule.forRoot({ baseUrl: server.baseUrl('shop'), workloadIdentity, stream: false, startupCheck: 'off' }),
    ],
  }).compile();
  try {
    const client = moduleRef.get(VaneClient);
    expect(client.keyType).toBe('');
    expect(client.config('db.host')).toBe('db.internal');
  } finally {
    await moduleRef.close();
  }
});

it('createVane passes workloadIdentity to the client', async () => {
  const vane = await createVane({ baseUrl: server.baseUrl('shop'), workloadIdentity, stream: false });
  try {
    expect(vane.client.keyType).toBe('');
    expect(vane.client.config('db.host')).toBe('db.internal');
  } finally {
    await vane.close();
  }
});
