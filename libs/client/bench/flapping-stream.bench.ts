/**
 * A flapping stream — accepted with 200, one `resync`, then cut (what a
 * proxy that buffers or cuts SSE does) — for 10 minutes of hand-driven time:
 * how many times the client reconnects. In-memory transport, default options.
 *
 * Run: `npm run bench -w @vane/client`, or from libs/client
 * `node --import ../../scripts/ts-register.mjs bench/flapping-stream.bench.ts [<path>]`.
 * With the path of another client's `src/index.ts` (e.g. an older commit's
 * sources, from `git archive`), that client is measured in the same run as
 * the baseline.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VaneClient } from '@vane/client';
import { FakeTransport, json, type FakeResponse } from '../test/helpers/fake-transport.js';
import { ManualTimers } from '../test/helpers/manual-timers.js';

type ClientClass = Pick<typeof VaneClient, 'create'>;

const TEN_MINUTES_MS = 600_000;

async function reconnects(Client: ClientClass): Promise<{ attempts: number; connectedAtEnd: boolean }> {
  const snapshot = { service: { slug: 'shop', kind: 'backend' }, revision: 3, configs: { a: 1 }, flags: {} };
  const transport = new FakeTransport((req): FakeResponse => {
    if (new URL(req.url).pathname === '/v1/sync') return json(200, snapshot, { etag: '"r3"' });
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: 'id: 3\nevent: resync\ndata: {"revision": 3}\n\n',
    };
  });
  const timers = new ManualTimers();
  const client = await Client.create({
    baseUrl: 'https://shop.vane.example',
    apiKey: 'svs_bench_secret_key_0000000001',
    transport,
    timers,
    clock: timers,
    random: Math.random,
    logger: { warn() {}, error() {} },
  });
  for (let ms = 0; ms < TEN_MINUTES_MS; ms += 250) await timers.advance(250);
  const result = { attempts: transport.to('/v1/stream').length, connectedAtEnd: client.connected };
  await client.close();
  return result;
}

async function main(): Promise<void> {
  const baselinePath = process.argv[2];
  console.log('| client | stream attempts in 10 min | `connected` at the end |');
  console.log('|---|---|---|');
  let base: number | undefined;
  if (baselinePath) {
    const old = (await import(pathToFileURL(resolve(baselinePath)).href)) as { VaneClient: ClientClass };
    const r = await reconnects(old.VaneClient);
    base = r.attempts;
    console.log(`| baseline (${baselinePath}) | ${r.attempts} | ${r.connectedAtEnd} |`);
  }
  const r = await reconnects(VaneClient);
  const ratio = base === undefined ? '' : ` (**${(r.attempts / base).toFixed(3)}x** the baseline)`;
  console.log(`| this client | ${r.attempts}${ratio} | ${r.connectedAtEnd} |`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
