/**
 * What the cache of A/B answers (#24) costs when it never hits: a new user's
 * evaluation through the client's `AbEvaluator` with the cache at its
 * default bound (full: every answer stored evicts the least recently used),
 * against the same evaluation without a cache. The service's answer is given
 * at once (no network), so what is left is the cache's own work: the lookup
 * that misses, the look for a call in flight, storing the answer, evicting
 * one, and the garbage of all that. Alternating rounds, median of the
 * per-round differences (the machine is shared and noisy).
 *
 * Run: `npm run bench -w @vane/client` (prints a Markdown report).
 */
import { cpus } from 'node:os';
import { AB_CACHE_DEFAULTS } from '../src/ab/ab-cache-options.js';
import { planAbEvaluation, type AbResults } from '@vane/client-core';
import { AbEvaluator } from '../src/ab/ab-evaluator.js';

const ROUNDS = 9;
const PER_ROUND = 100_000;
const ATTRIBUTES = { country: 'DE', plan: 'pro' };
const ANSWER: AbResults = Object.freeze({ 'new-pricing': true });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const clock = { now: (): number => Date.now() };
  const send = (): Promise<AbResults> => Promise.resolve(ANSWER);
  const cached = new AbEvaluator(send, AB_CACHE_DEFAULTS, clock);
  const uncached = new AbEvaluator(send, undefined, clock);
  const plan = planAbEvaluation(['new-pricing'], () => true);
  let user = 0;
  /** ns per evaluation of a user never seen before. */
  const round = async (evaluator: AbEvaluator): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++) await evaluator.evaluate(plan, `new-${user++}`, ATTRIBUTES, 1);
    return Number(process.hrtime.bigint() - start) / PER_ROUND;
  };
  // Warm-up, and the cache filled to its bound.
  while (cached.stats.size < AB_CACHE_DEFAULTS.maxEntries) await round(cached);
  await round(uncached);
  const withCache: number[] = [];
  const without: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    withCache.push(await round(cached));
    without.push(await round(uncached));
  }
  const extra = median(withCache.map((ns, i) => ns - without[i]!));
  console.log(`\n## A/B cache, every user new (${process.version}, ${cpus()[0]?.model ?? 'cpu'})\n`);
  console.log('| evaluation of a new user, answer given at once | ns (median of rounds) |');
  console.log('|---|---:|');
  console.log(`| with the cache (full at ${AB_CACHE_DEFAULTS.maxEntries} answers) | ${median(withCache).toFixed(0)} |`);
  console.log(`| without a cache (\`abCache: false\`) | ${median(without).toFixed(0)} |`);
  console.log(`\nwhat the cache adds to a miss: ${extra.toFixed(0)} ns (median of ${ROUNDS} per-round differences)`);
  console.log(`cache after: ${JSON.stringify(cached.stats)}`);
}

void main();
