import type { VaneServerSeed } from '@vane/server';

/** The secret key of the test seed: it must never appear in an evaluation detail, an event or a log line. */
export const SECRET_KEY = 'svs_shop_openfeature_test_secret';
/** The secret value of the test seed: never readable through OpenFeature. */
export const SECRET_VALUE = 'rk_test_openfeature_value';

/** Flags and configs of every JSON type on a backend service `shop`. */
export function testSeed(): VaneServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 600 },
    services: {
      shop: {
        kind: 'backend',
        keys: [SECRET_KEY],
        configs: {
          'greeting.text': 'Hello',
          'db.pool.max': 10,
          'plans.order': ['basic', 'pro', 'team'],
          'cors.origins': ['https://a.example'],
          'maintenance.enabled': false,
          'banner.text': null,
        },
        flags: {
          'new-checkout': { is_enabled: true, starts_at: null, ends_at: null },
          beta: { is_enabled: false, starts_at: null, ends_at: null },
          // Off for everyone but users whose country is DE or FR.
          'new-pricing': {
            is_enabled: true,
            ab: {
              percentage: 0,
              salt: 'np-1',
              cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['DE', 'FR'] }], percentage: 100 }],
            },
          },
          // On for users whose plan is pro.
          'dark-mode': {
            is_enabled: true,
            ab: {
              percentage: 0,
              salt: 'dm-1',
              cohorts: [{ conditions: [{ attribute: 'plan', op: 'eq', values: ['pro'] }], percentage: 100 }],
            },
          },
        },
        secrets: { 'stripe.api_key': { type: 'text', value: SECRET_VALUE } },
      },
    },
  };
}
