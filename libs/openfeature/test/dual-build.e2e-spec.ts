import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startVaneServer, type VaneServer } from '@vane/server';
import { SECRET_KEY, testSeed } from './support/seed.js';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// Runs on the built package (`npm test` builds first), in a Node process of its own, as an app
// that installed it would load it: through import() in an ES module and through require() in CommonJS.
const ROOT = resolve(__dirname, '../../..');
const run = promisify(execFile);

const BODY = `
  const client = await VaneClient.create({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY, stream: false });
  await OpenFeature.setProviderAndWait(new VaneProvider(client, { abFlags: (key) => key === 'new-pricing' }));
  const features = OpenFeature.getClient();
  const answers = [
    await features.getBooleanDetails('new-checkout', false),
    await features.getBooleanDetails('new-pricing', false, { targetingKey: 'u1', country: 'DE' }),
    await features.getStringDetails('greeting.text', ''),
  ].map((d) => [d.value, d.reason]);
  await OpenFeature.close();
  await client.close();
  console.log(JSON.stringify(answers));
`;

const PROGRAMS = {
  'an ES module': [
    '--input-type=module',
    '-e',
    `import { OpenFeature } from '@openfeature/server-sdk';
     import { VaneClient } from '@vane/client';
     import { VaneProvider } from '@vane/openfeature';
     ${BODY}`,
  ],
  // The client from the ESM build, the provider from the CommonJS one: instanceof cannot tell it is a client.
  'an ES module giving its client to the CommonJS build': [
    '--input-type=module',
    '-e',
    `import { createRequire } from 'node:module';
     import { VaneClient } from '@vane/client';
     const { OpenFeature } = createRequire(process.cwd() + '/')('@openfeature/server-sdk');
     const { VaneProvider } = createRequire(process.cwd() + '/')('@vane/openfeature');
     ${BODY}`,
  ],
  CommonJS: [
    '-e',
    `const { OpenFeature } = require('@openfeature/server-sdk');
     const { VaneClient } = require('@vane/client');
     const { VaneProvider } = require('@vane/openfeature');
     (async () => { ${BODY} })().catch((e) => { console.error(e); process.exitCode = 1; });`,
  ],
};

let server: VaneServer;

beforeAll(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
});

afterAll(() => server.close());

it.each(Object.entries(PROGRAMS))(
  'the built provider works with OpenFeature in %s',
  async (_, args) => {
    const { stdout } = await run(process.execPath, args, {
      cwd: ROOT,
      timeout: 20_000,
      env: { ...process.env, BASE_URL: server.baseUrl('shop'), API_KEY: SECRET_KEY },
    });
    expect(JSON.parse(stdout)).toEqual([
      [true, 'STATIC'],
      [true, 'TARGETING_MATCH'],
      ['Hello', 'STATIC'],
    ]);
  },
  PROCESS_TEST_MS,
);
