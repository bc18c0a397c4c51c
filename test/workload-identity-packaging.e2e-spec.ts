import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// Runs on the built packages (`npm test` builds first), through Node's own resolver, as
// CommonJS and as ESM: @vane/server's jose (v5, dual CJS/ESM) signs and verifies
// sessions, and @vane/client loads AWS's optional signer packages lazily in both builds.
// Everything stays on loopback: a fake STS, the local server, given AWS credentials.
const ROOT = resolve(__dirname, '..');

const body = `
  const sts = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const signed = /^AWS4-HMAC-SHA256 Credential=AKIDPACKAGING\\//.test(req.headers.authorization || '') && typeof req.headers['x-amz-date'] === 'string';
      res.writeHead(signed ? 200 : 403, { 'content-type': 'text/xml' });
      res.end('<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:sts::123456789012:assumed-role/pkg/s</Arn></GetCallerIdentityResult></GetCallerIdentityResponse>');
    });
  });
  await new Promise((r) => sts.listen(0, '127.0.0.1', r));
  const stsUrl = 'http://127.0.0.1:' + sts.address().port;
  const server = await startVaneServer({ seed: { services: { shop: { configs: { answer: 42 }, trusts: { iam: { provider: 'aws', sts_endpoint: stsUrl, role_arns: ['arn:aws:iam::123456789012:role/pkg'], key_type: 'secret' } } } } }, allowOutbound: [stsUrl] });
  try {
    const client = await VaneClient.create({
      baseUrl: server.baseUrl('shop'),
      stream: false,
      logger: { warn() {}, error() {} },
      workloadIdentity: { provider: 'aws', audience: 'vane', awsStsEndpoint: stsUrl, awsCredentials: async () => ({ accessKeyId: 'AKIDPACKAGING', secretAccessKey: 'x' }), env: {} },
    });
    console.log(JSON.stringify({ keyType: client.keyType, answer: client.config('answer') }));
    await client.close();
  } finally {
    await server.close();
    sts.close();
  }
`;

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

it(
  'CommonJS: require() of the built packages exchanges an AWS identity for a session',
  () => {
    const script = `const { createServer } = require('node:http'); const { startVaneServer } = require('@vane/server'); const { VaneClient } = require('@vane/client'); (async () => { ${body} })().catch((e) => { console.error(e); process.exit(1); });`;
    expect(JSON.parse(node(['-e', script]))).toEqual({ keyType: '', answer: 42 });
  },
  PROCESS_TEST_MS,
);

it(
  'ESM: import of the built packages exchanges an AWS identity for a session',
  () => {
    const script = `import { createServer } from 'node:http'; import { startVaneServer } from '@vane/server'; import { VaneClient } from '@vane/client'; ${body}`;
    expect(JSON.parse(node(['--input-type=module', '-e', script]))).toEqual({ keyType: '', answer: 42 });
  },
  PROCESS_TEST_MS,
);
