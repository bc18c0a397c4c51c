import type { VaneServerSeed } from '@vane/server';

/** Keys of the test seed. */
export const KEYS = {
  shopSecret: 'svs_shop_nest_secret',
  shopPublic: 'svp_shop_nest_public',
  otherSecret: 'svs_other_nest_secret',
  webSecret: 'svs_web_nest_secret',
} as const;

/** A backend service with flags (plain and A/B), configs and secrets; another backend; a frontend one. */
export function nestSeed(): VaneServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null },
    services: {
      shop: {
        kind: 'backend',
        keys: [KEYS.shopSecret, KEYS.shopPublic],
        configs: {
          'db.host': 'db.internal',
          'db.pool.max': 10,
          'cors.origins': ['https://a.example'],
          'banner.text': null,
        },
        flags: {
          'new-checkout': { is_enabled: true },
          beta: { is_enabled: false },
          'new-pricing': {
            is_enabled: true,
            ab: {
              percentage: 0,
              salt: 'np-1',
              cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['DE', 'FR'] }], percentage: 100 }],
            },
          },
          'dark-mode': { is_enabled: true, ab: { percentage: 100, salt: 'dm-1', cohorts: [] } },
          'fast-search': {
            is_enabled: true,
            ab: {
              percentage: 0,
              salt: 'fs-1',
              cohorts: [{ conditions: [{ attribute: 'plan', op: 'eq', values: ['pro'] }], percentage: 100 }],
            },
          },
        },
        secrets: {
          'stripe.api_key': { type: 'text', value: 'rk_test_v1' },
          'tls.client_pem': { type: 'file', value: 'pem-v1' },
        },
      },
      other: { kind: 'backend', keys: [KEYS.otherSecret], configs: { 'a.b': 1 } },
      web: {
        kind: 'frontend',
        keys: [KEYS.webSecret],
        configs: { 'ui.theme': 'dark' },
        flags: { 'dark-mode': { is_enabled: true } },
      },
    },
  };
}
