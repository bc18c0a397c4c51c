/**
 * Benchmark of @vane/openfeature, in one run, against a baseline:
 * `getBooleanValue` through `VaneProvider` (flags from the client's cache,
 * synced from the local server) vs OpenFeature's own `InMemoryProvider`
 * holding the same 1 024 flags with the same values. Both go through the
 * same OpenFeature client code (hooks, context merge, details), so the ratio
 * is the provider's own cost.
 *
 * Run: `npm run bench -w @vane/openfeature` (prints a Markdown report).
 */
import { cpus } from 'node:os';
import { InMemoryProvider, OpenFeature, type Client } from '@openfeature/server-sdk';
import { startVaneServer, type VaneServerSeed } from '@vane/server';
import { VaneProvider } from '../src/index.js';

const SK = 'svs_bench_openfeature_key_000001';
const FLAGS = 1024;
const ROUNDS = 7;
const PER_ROUND = 50_000;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** ns per `getBooleanValue`, awaited one after the other, keys cycled; checks every answer. */
async function nsPerEvaluation(client: Client, keys: readonly string[]): Promise<number> {
  let wrong = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < PER_ROUND; i++) {
    const index = i & (FLAGS - 1);
    if ((await client.getBooleanValue(keys[index]!, false)) !== (index % 3 === 0)) wrong++;
  }
  const ns = Number(process.hrtime.bigint() - start) / PER_ROUND;
  if (wrong > 0) throw new Error(`${wrong} wrong answers`);
  return ns;
}

async function main(): Promise<void> {
  const seedFlags: Record<string, { is_enabled: boolean }> = {};
  const memoryFlags: ConstructorParameters<typeof InMemoryProvider>[0] = {};
  const keys: string[] = [];
  for (let i = 0; i < FLAGS; i++) {
    const key = `flag-${i}`;
    keys.push(key);
    seedFlags[key] = { is_enabled: i % 3 === 0 };
    memoryFlags[key] = {
      variants: { on: true, off: false },
      defaultVariant: i % 3 === 0 ? 'on' : 'off',
      disabled: false,
    };
  }
  const seed: VaneServerSeed = { services: { bench: { kind: 'backend', keys: [SK], flags: seedFlags } } };
  const server = await startVaneServer({ seed, port: 0 });
  const silent = { warn() {}, error() {} };
  await OpenFeature.setProviderAndWait(
    'vane',
    new VaneProvider({ baseUrl: server.baseUrl('bench'), apiKey: SK, logger: silent }),
  );
  await OpenFeature.setProviderAndWait('memory', new InMemoryProvider(memoryFlags));
  const vane = OpenFeature.getClient('vane');
  const memory = OpenFeature.getClient('memory');

  for (const key of keys)
    if ((await vane.getBooleanValue(key, false)) !== (await memory.getBooleanValue(key, true)))
      throw new Error(`${key}: the providers disagree`);
  await nsPerEvaluation(vane, keys); // warm-up
  await nsPerEvaluation(memory, keys);
  const rows = { vane: [] as number[], memory: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    rows.memory.push(await nsPerEvaluation(memory, keys));
    rows.vane.push(await nsPerEvaluation(vane, keys));
  }
  await OpenFeature.close();
  await server.close();

  const [v, m] = [median(rows.vane), median(rows.memory)];
  const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ns`;
  console.log(
    `\n## @vane/openfeature (${new Date().toISOString()}, Node ${process.version}, ${cpus()[0]?.model ?? 'cpu'}, ${ROUNDS} rounds of ${PER_ROUND} evaluations, medians)\n`,
  );
  console.log('| measure | VaneProvider | InMemoryProvider | ratio |');
  console.log('|---|---|---|---|');
  console.log(
    `| \`getBooleanValue(key, false)\`, ${FLAGS} flags, awaited in turn | ${v.toFixed(0)} ns (${spread(rows.vane)}) | ${m.toFixed(0)} ns (${spread(rows.memory)}) | **${(v / m).toFixed(2)}x** |`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
