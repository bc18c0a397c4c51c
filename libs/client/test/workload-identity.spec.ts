import {
  ManualClock,
  startVaneServer,
  type VaneServer,
  type VaneServerSeed,
  type VaneServerTrustInput,
} from '@vane/server';
import {
  checkConnectivity,
  VaneClient,
  WorkloadIdentityCredentials,
  type VaneClientOptions,
  type WorkloadIdentityOptions,
} from '../src/index.js';
import {
  NotAVaneServiceError,
  SessionExpiredError,
  TokenExchangeFailedError,
  WorkloadIdentityNotConfiguredError,
} from '../src/errors.js';
import {
  createDefaultDispatcher,
  UndiciTransport,
  type Transport,
  type TransportRequest,
} from '../src/http/transport.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { flush, ManualTimers } from './helpers/manual-timers.js';
import { seed } from './helpers/seed.js';
import {
  AWS_TEST_CREDENTIALS,
  closedPort,
  FakeHttpServer,
  json,
  jwtPlatform,
  jwtTrust,
  stsHandler,
  tempDir,
  type JwtPlatform,
} from './helpers/workload-platforms.js';
import { until, waitForStatus } from '@vane/server/testing';

// Every platform endpoint of every test points at a fake on 127.0.0.1, a closed
// loopback port or a temporary file: nothing here may reach 169.254.169.254,
// metadata.google.internal or AWS.
const T0 = Date.parse('2026-11-22T10:00:00Z');
const K8S_SUBJECT = 'system:serviceaccount:shop:api';
const GCP_AUDIENCE = 'https://shop.vane.example';
const GCP_SUBJECT = '109876543210';
const AZURE_AUDIENCE = 'api://vane-shop';
const AZURE_SUBJECT = 'managed-identity-object-id';
const ROLE = 'arn:aws:iam::123456789012:role/shop-api';

let k8s: JwtPlatform;
let gcp: JwtPlatform;
let azure: JwtPlatform;
let metadata: FakeHttpServer;
let sts: FakeHttpServer;
let refused: string;
let dir: ReturnType<typeof tempDir>;
let k8sTokenFile: string;
let savedEnv: NodeJS.ProcessEnv;

let server: VaneServer;
let serverClock: ManualClock | undefined;
let logger: MemoryLogger;
const clients: VaneClient[] = [];
/** Platform tokens and sessions handed out in a test: none may appear in a log line or an error message. */
const issued: string[] = [];

function trusts(): Record<string, VaneServerTrustInput> {
  return {
    cluster: jwtTrust('kubernetes', k8s, 'vane', K8S_SUBJECT),
    gce: jwtTrust('gcp', gcp, GCP_AUDIENCE, GCP_SUBJECT),
    vm: jwtTrust('azure', azure, AZURE_AUDIENCE, AZURE_SUBJECT),
    iam: { provider: 'aws', sts_endpoint: sts.url, role_arns: [ROLE], audience: 'vane-shop', key_type: 'secret' },
  };
}

function seedWithTrusts(): VaneServerSeed {
  const s = seed();
  s.services!['shop']!.trusts = trusts();
  return s;
}

/** Options that keep every endpoint on loopback; the environment is empty unless given. */
function wi(overrides: Partial<WorkloadIdentityOptions> = {}): WorkloadIdentityOptions {
  return {
    audience: 'vane-shop',
    kubernetesTokenPath: `${dir.path}/no-such-token`,
    gcpMetadataHost: refused,
    azureImdsEndpoint: `http://${refused}`,
    awsImdsEndpoint: `http://${refused}`,
    awsStsEndpoint: sts.url,
    probeTimeoutMs: 300,
    env: {},
    ...overrides,
  };
}

/** A transport that records every request (to count exchanges and see headers). */
class RecordingTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  readonly #inner: Transport;
  constructor(baseUrl: string) {
    this.#inner = new UndiciTransport({ dispatcher: createDefaultDispatcher(new URL(baseUrl)), ownsDispatcher: true });
  }
  request(req: TransportRequest) {
    this.requests.push(req);
    return this.#inner.request(req);
  }
  close() {
    return this.#inner.close();
  }
  exchanges(): number {
    return this.requests.filter((r) => r.url.endsWith('/v1/auth/token-exchange')).length;
  }
  bearers(): string[] {
    return this.requests.map((r) => r.headers['authorization']).filter((h): h is string => h !== undefined);
  }
}

async function connect(options: Partial<VaneClientOptions>): Promise<VaneClient> {
  const client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), logger, stream: false, ...options });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  savedEnv = { ...process.env };
  // AWS's provider chain reads process.env: keep it off the network for the whole file.
  process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
  for (const name of [
    'AWS_PROFILE',
    'AWS_WEB_IDENTITY_TOKEN_FILE',
    'AWS_ROLE_ARN',
    'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  ]) {
    delete process.env[name];
  }
  [k8s, gcp, azure] = await Promise.all([
    jwtPlatform('https://kubernetes.default.svc.cluster.local', 'k8s-1'),
    jwtPlatform('https://accounts.google.com', 'gcp-1'),
    jwtPlatform('https://sts.windows.net/tenant/', 'azure-1'),
  ]);
  [metadata, sts] = await Promise.all([FakeHttpServer.start(), FakeHttpServer.start()]);
  refused = await closedPort();
  process.env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] = `http://${refused}/creds`;
  dir = tempDir();
  process.env['AWS_CONFIG_FILE'] = `${dir.path}/aws-config-absent`;
  process.env['AWS_SHARED_CREDENTIALS_FILE'] = `${dir.path}/aws-credentials-absent`;
  sts.handler = stsHandler(sts, 'us-east-1', () => 'arn:aws:sts::123456789012:assumed-role/shop-api/i-0123');
});

afterAll(async () => {
  await Promise.all([metadata.close(), sts.close()]);
  dir.remove();
  process.env = savedEnv;
});

async function startServer(clock?: ManualClock, sessionTtlMs?: number): Promise<void> {
  serverClock = clock;
  // The fake STS is on loopback: the operator's allow-list admits it (nothing else internal is requested).
  server = await startVaneServer({ seed: seedWithTrusts(), clock, sessionTtlMs, allowOutbound: [sts.url] });
}

beforeEach(async () => {
  logger = new MemoryLogger();
  issued.length = 0;
  metadata.seen.length = 0;
  sts.seen.length = 0;
  metadata.handler = (_req, res) => json(res, 404, {});
  await startServer();
  const token = await k8s.sign({ aud: 'vane', sub: K8S_SUBJECT, nowMs: Date.now() });
  issued.push(token);
  k8sTokenFile = dir.file('k8s-token', `${token}\n`);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
  const logged = logger.text();
  for (const secret of [...issued, AWS_TEST_CREDENTIALS.secretAccessKey, AWS_TEST_CREDENTIALS.sessionToken])
    expect(logged).not.toContain(secret);
  expect(logged).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/); // no JWT, platform or session
  expect(logged).not.toContain('TOPSECRET');
});

/** The GCP metadata server and Azure IMDS / App Service, answering identity requests. */
function serveMetadata(): void {
  metadata.handler = (req, res) => {
    void (async () => {
      const url = new URL(req.path, 'http://x');
      if (url.pathname === '/computeMetadata/v1/' && req.headers['metadata-flavor'] === 'Google') {
        res.writeHead(200, { 'metadata-flavor': 'Google' });
        res.end('instance/\nproject/\n');
        return;
      }
      if (url.pathname === '/computeMetadata/v1/instance/service-accounts/default/identity') {
        if (req.headers['metadata-flavor'] !== 'Google') return json(res, 403, {});
        const token = await gcp.sign({
          aud: url.searchParams.get('audience') ?? '',
          sub: GCP_SUBJECT,
          nowMs: serverClock?.now() ?? Date.now(),
        });
        issued.push(token);
        res.writeHead(200, { 'content-type': 'application/text', 'metadata-flavor': 'Google' });
        res.end(token);
        return;
      }
      if (url.pathname === '/metadata/instance' && req.headers['metadata'] === 'true')
        return json(res, 200, { compute: {} });
      const imds = url.pathname === '/metadata/identity/oauth2/token' && req.headers['metadata'] === 'true';
      const appService =
        url.pathname === '/msi/token' && req.headers['x-identity-header'] === 'app-service-header-value';
      if (imds || appService) {
        const token = await azure.sign({
          aud: url.searchParams.get('resource') ?? '',
          sub: AZURE_SUBJECT,
          nowMs: Date.now(),
        });
        issued.push(token);
        return json(res, 200, { access_token: token, expires_in: '3599', token_type: 'Bearer' });
      }
      if (url.pathname === '/latest/api/token' && req.method === 'PUT') {
        res.writeHead(200);
        res.end('imds-session-token');
        return;
      }
      json(res, 404, {});
    })();
  };
}

describe('each provider, end to end against the local server', () => {
  it('kubernetes: the service-account token file; keyType is "", requests carry a Bearer session, secrets and the stream work', async () => {
    const transport = new RecordingTransport(server.baseUrl('shop'));
    const client = await connect({
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: k8sTokenFile }),
      transport,
      stream: true,
    });
    expect(client.keyType).toBe('');
    expect(client.config('db.host')).toBe('db.internal');
    expect(client.secret('stripe.api_key')).toBe('rk_test_TOPSECRET');
    const sync = transport.requests.find((r) => r.url.endsWith('/v1/sync'))!;
    expect(sync.headers['authorization']).toMatch(/^Bearer ey/);
    expect(sync.headers['x-service-api-key']).toBeUndefined();
    const exchange = transport.requests.find((r) => r.url.endsWith('/v1/auth/token-exchange'))!;
    expect(exchange.headers['x-service-api-key']).toBeUndefined();
    expect(JSON.parse(exchange.body!)).toEqual({ provider: 'kubernetes', token: issued[0] });
    await waitForStatus(client, (s) => s.connected, { what: 'the stream to connect with the session' });
    server.admin.setConfig('shop', 'db.host', 'db2.internal');
    await until(() => client.config('db.host') === 'db2.internal', 'a live change over the session stream');
    const written = await client.setSecret('wi.token', 'value-TOPSECRET');
    expect(written.version).toBe(1);
    expect(server.admin.audit('shop').at(-1)?.actor).toBe('workload:cluster');
  });

  it('checkConnectivity exchanges the workload identity first, and reports a platform without one', async () => {
    const ok = await checkConnectivity({
      baseUrl: server.baseUrl('shop'),
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: k8sTokenFile }),
    });
    expect(ok).toMatchObject({ ok: true, status: 200 });
    const missing = await checkConnectivity({
      baseUrl: server.baseUrl('shop'),
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: `${dir.path}/no-such-token` }),
    });
    expect(missing).toMatchObject({ ok: false, code: 'VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED' });
  });

  it('gcp: an identity token from the metadata server (GCE_METADATA_HOST), for the audience, with Metadata-Flavor', async () => {
    serveMetadata();
    const client = await connect({
      workloadIdentity: wi({
        provider: 'gcp',
        audience: GCP_AUDIENCE,
        gcpMetadataHost: undefined,
        env: { GCE_METADATA_HOST: metadata.host },
      }),
    });
    expect(client.config('db.pool.max')).toBe(20);
    const call = metadata.seen.find((r) =>
      r.path.startsWith('/computeMetadata/v1/instance/service-accounts/default/identity'),
    )!;
    expect(new URL(call.path, 'http://x').searchParams.get('audience')).toBe(GCP_AUDIENCE);
    expect(call.headers['metadata-flavor']).toBe('Google');
  });

  it('azure: a managed-identity token from IMDS for the audience as resource, with the user-assigned client id', async () => {
    serveMetadata();
    const client = await connect({
      workloadIdentity: wi({
        provider: 'azure',
        audience: AZURE_AUDIENCE,
        azureImdsEndpoint: metadata.url,
        azureClientId: 'client-1',
      }),
    });
    expect(client.keyType).toBe('');
    const call = metadata.seen.find((r) => r.path.startsWith('/metadata/identity/oauth2/token'))!;
    const query = new URL(call.path, 'http://x').searchParams;
    expect(query.get('resource')).toBe(AZURE_AUDIENCE);
    expect(query.get('client_id')).toBe('client-1');
    expect(call.headers['metadata']).toBe('true');
  });

  it("azure: App Service's IDENTITY_ENDPOINT with IDENTITY_HEADER", async () => {
    serveMetadata();
    await connect({
      workloadIdentity: wi({
        provider: 'azure',
        audience: AZURE_AUDIENCE,
        env: { IDENTITY_ENDPOINT: `${metadata.url}/msi/token`, IDENTITY_HEADER: 'app-service-header-value' },
      }),
    });
    expect(metadata.count('/msi/token')).toBe(1);
    expect(metadata.count('/metadata/')).toBe(0);
  });

  it("azure: AKS's AZURE_FEDERATED_TOKEN_FILE", async () => {
    const token = await azure.sign({ aud: AZURE_AUDIENCE, sub: AZURE_SUBJECT, nowMs: Date.now() });
    issued.push(token);
    const file = dir.file('azure-federated', token);
    const client = await connect({
      workloadIdentity: wi({ provider: 'azure', audience: AZURE_AUDIENCE, env: { AZURE_FEDERATED_TOKEN_FILE: file } }),
    });
    expect(client.config('db.host')).toBe('db.internal');
    expect(metadata.seen).toHaveLength(0);
  });

  it("aws: AWS's provider chain (environment) and AWS's SigV4 signer; the fake STS verifies the signature", async () => {
    process.env['AWS_ACCESS_KEY_ID'] = AWS_TEST_CREDENTIALS.accessKeyId;
    process.env['AWS_SECRET_ACCESS_KEY'] = AWS_TEST_CREDENTIALS.secretAccessKey;
    process.env['AWS_SESSION_TOKEN'] = AWS_TEST_CREDENTIALS.sessionToken;
    try {
      const client = await connect({ workloadIdentity: wi({ provider: 'aws' }) });
      expect(client.keyType).toBe('');
      expect(client.secret('stripe.api_key')).toBe('rk_test_TOPSECRET');
    } finally {
      delete process.env['AWS_ACCESS_KEY_ID'];
      delete process.env['AWS_SECRET_ACCESS_KEY'];
      delete process.env['AWS_SESSION_TOKEN'];
    }
    expect(sts.seen).toHaveLength(1);
    expect(sts.seen[0]!.headers['x-amz-security-token']).toBe(AWS_TEST_CREDENTIALS.sessionToken);
    expect(sts.seen[0]!.headers['x-vane-audience']).toBe('vane-shop');
    expect(String(sts.seen[0]!.headers.authorization)).toContain('x-vane-audience');
  });

  it('aws: credentials from a given provider; a role the trust does not allow fails the exchange with 401', async () => {
    const client = await connect({
      workloadIdentity: wi({ provider: 'aws', awsCredentials: async () => AWS_TEST_CREDENTIALS }),
    });
    expect(client.config('db.host')).toBe('db.internal');
    sts.handler = stsHandler(sts, 'us-east-1', () => 'arn:aws:sts::123456789012:assumed-role/intruder/x');
    try {
      const error = await VaneClient.create({
        baseUrl: server.baseUrl('shop'),
        logger,
        stream: false,
        workloadIdentity: wi({ provider: 'aws', awsCredentials: async () => AWS_TEST_CREDENTIALS }),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TokenExchangeFailedError);
      expect((error as TokenExchangeFailedError).status).toBe(401);
    } finally {
      sts.handler = stsHandler(sts, 'us-east-1', () => 'arn:aws:sts::123456789012:assumed-role/shop-api/i-0123');
    }
  });

  it('aws: without the optional AWS packages, creation fails with the npm install command', async () => {
    const credentials = new WorkloadIdentityCredentials(
      wi({ provider: 'aws', awsCredentials: async () => AWS_TEST_CREDENTIALS }),
      async (name) => {
        throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
      },
    );
    const error = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      logger,
      stream: false,
      credentials,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadIdentityNotConfiguredError);
    expect((error as Error).message).toContain(
      'npm install @smithy/signature-v4 @aws-crypto/sha256-js @aws-sdk/credential-providers',
    );
  });
});

describe('auto detection', () => {
  let silent: FakeHttpServer;
  beforeAll(async () => {
    // Accepts connections and never answers: probes must give up on their own.
    silent = await FakeHttpServer.start();
    silent.handler = () => undefined;
  });
  afterAll(() => silent.close());

  async function detected(overrides: Partial<WorkloadIdentityOptions>): Promise<string | undefined> {
    const credentials = new WorkloadIdentityCredentials(wi({ provider: 'auto', ...overrides }), async () => {
      throw new Error('the AWS packages are not loaded by detection');
    });
    const transport = new RecordingTransport(server.baseUrl('shop'));
    const realTimers = {
      setTimeout: (cb: () => void, ms: number) => setTimeout(cb, ms).unref(),
      clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
    };
    try {
      // start() detects, then exchanges; the exchange's outcome does not matter here.
      await credentials
        .start({
          baseUrl: new URL(server.baseUrl('shop')),
          transport,
          timeoutMs: 1000,
          timers: realTimers,
          clock: { now: () => Date.now() },
          logger,
          signal: new AbortController().signal,
        })
        .catch(() => undefined);
      return credentials.provider;
    } finally {
      await credentials.close();
      await transport.close();
    }
  }

  it('follows the documented order: AKS file, AWS env, App Service, Kubernetes file, then GCP, Azure IMDS and EC2 probes', async () => {
    serveMetadata();
    const federated = dir.file('fed', 'x');
    const everything = {
      kubernetesTokenPath: k8sTokenFile,
      gcpMetadataHost: metadata.host,
      azureImdsEndpoint: metadata.url,
      awsImdsEndpoint: metadata.url,
      env: {
        AZURE_FEDERATED_TOKEN_FILE: federated,
        AWS_ACCESS_KEY_ID: 'AKID',
        IDENTITY_ENDPOINT: `${metadata.url}/msi/token`,
        IDENTITY_HEADER: 'app-service-header-value',
      },
    };
    expect(await detected(everything)).toBe('azure');
    expect(await detected({ ...everything, env: { ...everything.env, AZURE_FEDERATED_TOKEN_FILE: undefined } })).toBe(
      'aws',
    );
    expect(await detected({ ...everything, env: { AWS_WEB_IDENTITY_TOKEN_FILE: federated } })).toBe('aws');
    expect(await detected({ ...everything, env: { AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://${refused}/` } })).toBe(
      'aws',
    );
    expect(
      await detected({ ...everything, env: { IDENTITY_ENDPOINT: `${metadata.url}/msi/token`, IDENTITY_HEADER: 'h' } }),
    ).toBe('azure');
    expect(await detected({ ...everything, env: {} })).toBe('kubernetes');
    metadata.seen.length = 0;
    const noFile = { ...everything, env: {}, kubernetesTokenPath: `${dir.path}/absent` };
    expect(await detected(noFile)).toBe('gcp');
    expect(metadata.count('/computeMetadata/v1/')).toBeGreaterThanOrEqual(1);
    expect(await detected({ ...noFile, gcpMetadataHost: refused })).toBe('azure');
    expect(await detected({ ...noFile, gcpMetadataHost: refused, azureImdsEndpoint: `http://${refused}` })).toBe('aws');
    const imdsCalls = metadata.seen.filter((r) => r.path === '/latest/api/token');
    expect(imdsCalls.at(-1)?.method).toBe('PUT');
    // A GCP probe that answers without Metadata-Flavor: Google is not GCP.
    const impostor = await FakeHttpServer.start();
    try {
      impostor.handler = (_req, res) => json(res, 200, {});
      expect(
        await detected({ ...noFile, gcpMetadataHost: impostor.host, azureImdsEndpoint: `http://${refused}` }),
      ).toBe('aws');
    } finally {
      await impostor.close();
    }
  });

  it('with nothing found, creation fails within the probe timeout with "workload identity not configured", naming what was looked for', async () => {
    const started = Date.now();
    const error = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      logger,
      stream: false,
      workloadIdentity: wi({
        provider: 'auto',
        gcpMetadataHost: silent.host,
        azureImdsEndpoint: silent.url,
        awsImdsEndpoint: `http://${refused}`,
        probeTimeoutMs: 200,
      }),
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(WorkloadIdentityNotConfiguredError);
    const e = error as WorkloadIdentityNotConfiguredError;
    expect(e.code).toBe('VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED');
    expect(e.message).toContain('workload identity not configured');
    for (const part of [
      'AZURE_FEDERATED_TOKEN_FILE',
      'AWS_ACCESS_KEY_ID',
      'IDENTITY_ENDPOINT',
      `${dir.path}/no-such-token (ENOENT)`,
      `GCP metadata server at http://${silent.host} (ETIMEDOUT)`,
      `Azure IMDS at ${silent.url} (ETIMEDOUT)`,
      `EC2 instance metadata at http://${refused} (ECONNREFUSED)`,
    ]) {
      expect(e.message).toContain(part);
    }
  });

  it('skips the EC2 probe when AWS_EC2_METADATA_DISABLED=true', async () => {
    const error = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      logger,
      stream: false,
      workloadIdentity: wi({
        provider: 'auto',
        awsImdsEndpoint: metadata.url,
        env: { AWS_EC2_METADATA_DISABLED: 'true' },
      }),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('disabled by AWS_EC2_METADATA_DISABLED');
    expect(metadata.count('/latest/api/token')).toBe(0);
  });

  it('an explicit provider whose token file is missing fails with "not configured", naming the file', async () => {
    const error = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      logger,
      stream: false,
      workloadIdentity: wi({ provider: 'kubernetes' }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadIdentityNotConfiguredError);
    expect((error as Error).message).toContain(`${dir.path}/no-such-token (ENOENT)`);
  });
});

describe('sessions over time', () => {
  async function clockedClient(sessionTtlMs: number, extra: Partial<WorkloadIdentityOptions> = {}, ttlMs = 3_600_000) {
    await server.close();
    const clock = new ManualClock(T0);
    await startServer(clock, sessionTtlMs);
    const token = await k8s.sign({ aud: 'vane', sub: K8S_SUBJECT, nowMs: T0, lifetimeS: 86_400 });
    issued.push(token);
    const file = dir.file('k8s-token-clocked', token);
    const timers = new ManualTimers(T0);
    const transport = new RecordingTransport(server.baseUrl('shop'));
    const client = await connect({
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: file, ...extra }),
      transport,
      timers,
      clock: timers,
      ttlMs,
    });
    return { client, timers, transport, clock };
  }

  it('refreshes the session refreshMarginMs before expires_at, on the injected clock, and uses the new one', async () => {
    const { client, timers, transport, clock } = await clockedClient(600_000, { refreshMarginMs: 60_000 });
    expect(transport.exchanges()).toBe(1);
    const first = transport.bearers().at(-1);
    expect(timers.pendingDelays()).toContain(540_000);
    clock.advance(539_000);
    await timers.advance(539_000);
    expect(transport.exchanges()).toBe(1);
    clock.advance(1_000);
    await timers.advance(1_000);
    await until(() => transport.exchanges() === 2, 'the refresh exchange');
    await flush();
    // The exchange is recorded when sent: until its answer is in, requests rightly use the old, still valid session.
    await until(
      async () => {
        await client.sync();
        return transport.bearers().at(-1) !== first;
      },
      'a sync with the refreshed session',
      { timeoutMs: 2_000, intervalMs: 0 },
    );
    expect(transport.exchanges()).toBe(2);
    expect(transport.bearers().at(-1)).not.toBe(first);
    expect(
      transport.requests
        .filter((r) => r.url.endsWith('/v1/sync'))
        .every((r) => r.headers['authorization'] !== undefined),
    ).toBe(true);
  });

  it('refreshes halfway when the session is shorter than twice the margin', async () => {
    const { timers } = await clockedClient(60_000, { refreshMarginMs: 60_000 });
    expect(timers.pendingDelays()).toContain(30_000);
  });

  it('a 401 on the session triggers exactly one re-exchange, then the request is retried and succeeds', async () => {
    const { client, transport, clock } = await clockedClient(600_000);
    clock.advance(600_000); // the server sees the session expired; the client's clock has not moved
    const before = transport.requests.length;
    const result = await client.sync();
    expect(result).toBeDefined();
    const after = transport.requests.slice(before).map((r) => new URL(r.url).pathname);
    expect(after).toEqual(['/v1/sync', '/v1/auth/token-exchange', '/v1/sync']);
  });

  it('a failed re-exchange: a foreground call rejects with SessionExpiredError; background work logs it and keeps serving the cache', async () => {
    const { client, transport, clock, timers } = await clockedClient(600_000, {}, 5_000);
    clock.advance(600_000);
    server.admin.deleteTrust('shop', 'cluster');
    const error = await client.sync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionExpiredError);
    const e = error as SessionExpiredError;
    expect(e.code).toBe('VANE_SESSION_EXPIRED');
    expect(e.cause).toBeInstanceOf(TokenExchangeFailedError);
    expect((e.cause as TokenExchangeFailedError).status).toBe(401);
    expect(transport.exchanges()).toBe(2);
    // The background TTL sync meets the same failure: logged, cache kept.
    await timers.advance(5_000);
    await until(() => /session expired/.test(logger.text('warn')), 'the background sync to log the expired session');
    expect(client.config('db.host')).toBe('db.internal');
    expect(client.secret('stripe.api_key')).toBe('rk_test_TOPSECRET');
  });

  it('a failed background refresh is logged and retried, the session serving until it expires', async () => {
    const { client, timers, transport, clock } = await clockedClient(600_000, { refreshMarginMs: 60_000 });
    server.admin.deleteTrust('shop', 'cluster');
    clock.advance(540_000);
    await timers.advance(540_000);
    await until(() => /session refresh failed/.test(logger.text('warn')), 'the failed refresh to be logged');
    expect(timers.pendingDelays()).toContain(10_000);
    server.admin.putTrust('shop', 'cluster', jwtTrust('kubernetes', k8s, 'vane', K8S_SUBJECT));
    clock.advance(10_000);
    await timers.advance(10_000);
    await until(() => transport.exchanges() === 3, 'the retried refresh');
    await client.sync();
  });
});

describe('errors and precedence', () => {
  it('any non-2xx exchange is TokenExchangeFailedError with the status', async () => {
    const stranger = await jwtPlatform('https://kubernetes.default.svc.cluster.local', 'k8s-1');
    const token = await stranger.sign({ aud: 'vane', sub: K8S_SUBJECT, nowMs: Date.now() });
    issued.push(token);
    const file = dir.file('forged', token);
    const forged = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      logger,
      stream: false,
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: file }),
    }).catch((e: unknown) => e);
    expect(forged).toBeInstanceOf(TokenExchangeFailedError);
    expect((forged as TokenExchangeFailedError).status).toBe(401);
    expect((forged as TokenExchangeFailedError).code).toBe('VANE_TOKEN_EXCHANGE_FAILED');
    expect((forged as Error).message).not.toContain(token);
    const unknownSlug = await VaneClient.create({
      baseUrl: server.baseUrl('nope'),
      logger,
      stream: false,
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: k8sTokenFile }),
    }).catch((e: unknown) => e);
    expect((unknownSlug as TokenExchangeFailedError).status).toBe(404);
  });

  it('an exchange answered by something that is not a Vane service (a wrong port) says so', async () => {
    const other = await FakeHttpServer.start(); // answers 404, without Vane-Protocol
    try {
      const error = await VaneClient.create({
        baseUrl: `http://shop.localhost:${other.host.split(':')[1]}`,
        logger,
        stream: false,
        workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: k8sTokenFile }),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TokenExchangeFailedError);
      expect(error).toMatchObject({ status: 404 });
      expect((error as Error).message).toContain('no Vane service answers at shop.localhost');
      expect((error as Error).cause).toBeInstanceOf(NotAVaneServiceError);
      expect(other.count('/v1/auth/token-exchange')).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('a static apiKey set together with workloadIdentity wins: no exchange, keyType from the key, a warning', async () => {
    const transport = new RecordingTransport(server.baseUrl('shop'));
    const client = await connect({
      apiKey: 'svp_shop_e2e_public_key_000001',
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: k8sTokenFile }),
      transport,
    });
    expect(client.keyType).toBe('pk');
    expect(transport.exchanges()).toBe(0);
    expect(logger.text('warn')).toContain('workloadIdentity is ignored: apiKey is set');
  });

  it('a session from a public trust reads no secrets and cannot write them', async () => {
    server.admin.putTrust('shop', 'cluster', jwtTrust('kubernetes', k8s, 'vane', K8S_SUBJECT, 'public'));
    const client = await connect({
      workloadIdentity: wi({ provider: 'kubernetes', kubernetesTokenPath: k8sTokenFile }),
    });
    expect(client.secret('stripe.api_key')).toBeNull();
    await expect(client.setSecret('x', 'y')).rejects.toMatchObject({ code: 'VANE_UNAUTHORIZED' });
  });
});
