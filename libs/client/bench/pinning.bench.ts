/**
 * What a pinned read costs (#21), in one run, against a bare `Map.get` on the
 * same keys: a config and a flag read inside `runPinned()` (while its
 * revision is served, and once a change replaced it), through a
 * `view()`, and live reads before and after the process first used a
 * pinned scope (AsyncLocalStorage is enabled process-wide from then on).
 *
 * Its own process: once a scope has run, every later benchmark in the process
 * would pay for AsyncLocalStorage too.
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { cpus } from 'node:os';
import { startVaneServer, type VaneServerSeed } from '@vane/server';
import { VaneClient } from '@vane/client';

const SK = 'svs_bench_secret_key_0000000001';
const silent = { warn() {}, error() {} };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** ns per call of `body` over `iterations` calls, keys cycled. */
function nsPerOp(iterations: number, body: (i: number) => boolean): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) if (body(i)) sink++;
  const ns = Number(process.hrtime.bigint() - start) / iterations;
  if (sink === -1) console.log(sink);
  return ns;
}

async function main(): Promise<void> {
  const configs: Record<string, string | number> = {};
  const flags: Record<string, { is_enabled: boolean }> = {};
  for (let i = 0; i < 1024; i++) {
    configs[`section${i % 32}.key${i}`] = i % 2 ? `value-${i}` : i;
    flags[`flag-${i}`] = { is_enabled: i % 3 === 0 };
  }
  const seed: VaneServerSeed = { services: { bench: { kind: 'backend', keys: [SK], configs, flags } } };
  const server = await startVaneServer({ seed, port: 0 });
  const client = await VaneClient.create({
    baseUrl: server.baseUrl('bench'),
    apiKey: SK,
    stream: false,
    logger: silent,
  });
  const configKeys = Object.keys(configs);
  const flagKeys = Object.keys(flags);
  const configMap = new Map<string, unknown>(client.configs());
  const flagMap = new Map<string, boolean>(flagKeys.map((k) => [k, client.flag(k)]));
  const n = 5_000_000;
  const ROUNDS = 7;
  const rows: Record<string, number[]> = {
    mapConfig: [],
    mapFlag: [],
    liveConfigBefore: [],
    liveFlagBefore: [],
    pinnedConfig: [],
    pinnedFlag: [],
    replacedConfig: [],
    replacedFlag: [],
    viewConfig: [],
    viewFlag: [],
    liveConfigAfter: [],
    liveFlagAfter: [],
  };
  const config = (i: number): boolean => client.config(configKeys[i & 1023]!) !== undefined;
  const flag = (i: number): boolean => client.flag(flagKeys[i & 1023]!);
  // Live reads while no scope ever ran in the process.
  for (let round = 0; round < ROUNDS; round++) {
    rows.mapConfig!.push(nsPerOp(n, (i) => configMap.get(configKeys[i & 1023]!) !== undefined));
    rows.liveConfigBefore!.push(nsPerOp(n, config));
    rows.mapFlag!.push(nsPerOp(n, (i) => flagMap.get(flagKeys[i & 1023]!) === true));
    rows.liveFlagBefore!.push(nsPerOp(n, flag));
  }
  for (let round = 0; round < ROUNDS; round++) {
    rows.pinnedConfig!.push(client.runPinned(() => nsPerOp(n, config)));
    rows.pinnedFlag!.push(client.runPinned(() => nsPerOp(n, flag)));
    // Inside a scope whose revision a change replaced: reads look their scope up.
    await client.runPinned(async () => {
      server.admin.setConfig('bench', 'section0.key0', 10_000 + round);
      await client.sync();
      rows.replacedConfig!.push(nsPerOp(n, config));
      rows.replacedFlag!.push(nsPerOp(n, flag));
    });
    const view = client.view();
    rows.viewConfig!.push(nsPerOp(n, (i) => view.config(configKeys[i & 1023]!) !== undefined));
    rows.viewFlag!.push(nsPerOp(n, (i) => view.flag(flagKeys[i & 1023]!)));
    view.release();
    rows.liveConfigAfter!.push(nsPerOp(n, config));
    rows.liveFlagAfter!.push(nsPerOp(n, flag));
  }
  // A scope's own cost: taking the revision, entering, leaving, letting go.
  const scopes = 1_000_000;
  const scopeNs = median(
    Array.from({ length: ROUNDS }, () => nsPerOp(scopes, (i) => client.runPinned(() => config(i)))),
  );
  await client.close();
  await server.close();
  const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)])) as Record<string, number>;
  const row = (what: string, ns: number, base: number): string =>
    `| ${what} | ${ns.toFixed(1)} ns | ${base.toFixed(1)} ns | **${(ns / base).toFixed(2)}x** |`;
  console.log(
    `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), ${new Date().toISOString()}\n`,
  );
  console.log('| read (1 024 keys, cycled) | read | `Map.get` | ratio |');
  console.log('|---|---|---|---|');
  console.log(row('`client.config(key)`, live, no scope ever run', m.liveConfigBefore!, m.mapConfig!));
  console.log(row('`client.flag(key)`, live, no scope ever run', m.liveFlagBefore!, m.mapFlag!));
  console.log(row('`client.config(key)` inside `runPinned()`', m.pinnedConfig!, m.mapConfig!));
  console.log(row('`client.flag(key)` inside `runPinned()`', m.pinnedFlag!, m.mapFlag!));
  console.log(row('`client.config(key)` inside `runPinned()`, its revision replaced', m.replacedConfig!, m.mapConfig!));
  console.log(row('`client.flag(key)` inside `runPinned()`, its revision replaced', m.replacedFlag!, m.mapFlag!));
  console.log(row('`view.config(key)`', m.viewConfig!, m.mapConfig!));
  console.log(row('`view.flag(key)`', m.viewFlag!, m.mapFlag!));
  console.log(row('`client.config(key)`, live, after scopes ran', m.liveConfigAfter!, m.mapConfig!));
  console.log(row('`client.flag(key)`, live, after scopes ran', m.liveFlagAfter!, m.mapFlag!));
  console.log(
    `\n\`runPinned(() => client.config(key))\`: ${scopeNs.toFixed(0)} ns per scope (taking the revision, entering and leaving the scope, letting go, and one read).`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
