// One revision per scope under load (#21): its own file, in the slow suite (`npm run test:slow`).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { until, waitForRevision } from '@vane/server/testing';
import { VaneClient } from '../src/index.js';
import { pinStatsOf } from '../src/adapter/index.js';
import { secretFileName } from '../src/secrets/secret-file-name.js';
import { MemoryLogger } from './helpers/fake-transport.js';
import { SHOP_SK, seed } from './helpers/seed.js';

let server: VaneServer;
let client: VaneClient | undefined;

beforeEach(async () => {
  server = await startVaneServer({ seed: seed(), port: 0 });
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

async function connect(): Promise<VaneClient> {
  client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: SHOP_SK, logger: new MemoryLogger() });
  return client;
}

describe('client.runPinned() under load', () => {
  it('10,000 scopes while the values change: no revision, and no file of an old version, left once they end', async () => {
    const client = await connect();
    const dir = dirname(client.requireSecretFile('tls.client_pem'));
    let inconsistent = 0;
    let maxHeld = 0;
    const scope = (): Promise<void> =>
      client.runPinned(async () => {
        const read = (): string =>
          `${client.config('pair.a')} ${client.config('pair.b')} ${client.revision} ${readFileSync(client.requireSecretFile('tls.client_pem'), 'utf8')}`;
        const first = read();
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (read() !== first) inconsistent++;
      });
    let last = 0;
    for (let round = 0; round < 100; round++) {
      // Three revisions a round, landing while the round's scopes run: each scope must see one of them throughout.
      const value = `v${round + 2}`;
      server.admin.setConfig('shop', 'pair.a', value);
      server.admin.setConfig('shop', 'pair.b', value);
      last = server.admin.setSecret('shop', 'tls.client_pem', `pem-${value}`, 'file').revision;
      await Promise.all(Array.from({ length: 100 }, scope));
      maxHeld = Math.max(maxHeld, pinStatsOf(client).heldRevisions);
    }
    await waitForRevision(client, last);
    expect(inconsistent).toBe(0);
    expect(maxHeld).toBeLessThan(100);
    await until(() => pinStatsOf(client).heldRevisions === 0, 'every revision to be let go');
    await until(() => readdirSync(dir).length === 2, 'only the live version files to be left');
    expect(pinStatsOf(client).fileVersions).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(
      [
        secretFileName('tls.client_pem'),
        `${secretFileName('tls.client_pem')}.v${client.secretInfo('tls.client_pem')!.version}`,
      ].sort(),
    );
  }, 60_000);
});
