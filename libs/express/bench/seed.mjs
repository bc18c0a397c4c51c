// The Vane service the Express benchmarks run against (ab-cache.bench.mjs, ab-instructions.bench.mjs):
// a plain flag and an A/B flag whose rule lets every bench user in, so every guarded answer is 200.

/** The backend key of the `bench` service. */
export const BENCH_KEY = 'svs_bench_express_secret';

/** The local server's seed: the A/B add-on on, one `bench` service. */
export const BENCH_SEED = {
  tenant: { ab_addon: true },
  services: {
    bench: {
      kind: 'backend',
      keys: [BENCH_KEY],
      configs: { 'bench.value': 0 },
      flags: {
        'new-checkout': { is_enabled: true },
        // Everyone in DE (every bench user): the guard lets each request through.
        'new-pricing': {
          is_enabled: true,
          ab: {
            percentage: 0,
            salt: 'np-bench',
            cohorts: [{ conditions: [{ attribute: 'country', op: 'eq', values: ['DE'] }], percentage: 100 }],
          },
        },
      },
    },
  },
};
