import { OpenFeature, type Client } from '@openfeature/server-sdk';
import { VaneClient } from '@vane/client';
import { startVaneServer, type VaneServer } from '@vane/server';
import { waitForRevision } from '@vane/server/testing';
import { VaneProvider } from '../src/index.js';
import { SECRET_KEY, testSeed } from './support/seed.js';

const silent = { warn: () => undefined, error: () => undefined };

let server: VaneServer;
let vane: VaneClient;
let client: Client;

beforeAll(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  vane = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: SECRET_KEY, logger: silent });
  await OpenFeature.setProviderAndWait(new VaneProvider(vane));
  client = OpenFeature.getClient();
});

afterAll(async () => {
  await OpenFeature.close();
  await vane.close();
  await server.close();
});

/** Evaluations of a flag and a config, with the revision each detail says it came from. */
async function evaluate(): Promise<{ flag: boolean; pool: number; revisions: unknown[] }> {
  const flag = await client.getBooleanDetails('new-checkout', false);
  const pool = await client.getNumberDetails('db.pool.max', 0);
  return { flag: flag.value, pool: pool.value, revisions: [flag.flagMetadata.revision, pool.flagMetadata.revision] };
}

describe('OpenFeature evaluations in a pinned scope (a request, a job)', () => {
  it('answer from the revision of the scope, even after a change reached the client; the next scope sees it', async () => {
    const { before, after } = await vane.runPinned(async () => {
      const first = await evaluate();
      server.admin.setConfig('shop', 'db.pool.max', 99);
      await waitForRevision(vane, server.admin.setFlag('shop', 'new-checkout', { is_enabled: false }));
      return { before: first, after: await evaluate() };
    });
    expect(before).toEqual({ flag: true, pool: 10, revisions: [before.revisions[0], before.revisions[0]] });
    expect(after).toEqual(before);
    const next = await vane.runPinned(evaluate);
    expect(next).toMatchObject({ flag: false, pool: 99 });
    expect(next.revisions[0]).toBe(server.revision('shop'));
    // Outside any scope, evaluations are live, as before.
    await waitForRevision(vane, server.admin.setConfig('shop', 'db.pool.max', 7));
    expect(await evaluate()).toMatchObject({ pool: 7 });
  });
});
