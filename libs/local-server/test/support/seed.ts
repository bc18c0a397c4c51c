import type { LocalServerSeed } from '../../src/index.js';

/** Keys of the test seed. */
export const KEYS = {
  shopSecret: 'svs_shop_test_secret',
  shopPublic: 'svp_shop_test_public',
  shopRevoked: 'svs_shop_test_revoked',
  otherSecret: 'svs_other_test_secret',
  webSecret: 'svs_web_test_secret',
  webPublic: 'svp_web_test_public',
} as const;

/** A small seed with a backend service, another backend service and a frontend one. */
export function testSeed(): LocalServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 60 },
    services: {
      shop: {
        kind: 'backend',
        keys: [KEYS.shopSecret, KEYS.shopPublic],
        revoked_keys: [KEYS.shopRevoked],
        configs: {
          'db.host': 'localhost',
          'db.pool.max': 10,
          'pricing.discount': 0.15,
          'maintenance.enabled': false,
          'cors.origins': ['https://a.example'],
          'banner.text': null,
          'port.text': '5',
        },
        flags: {
          'new-checkout': { is_enabled: true, starts_at: null, ends_at: null },
          beta: { is_enabled: false, starts_at: null, ends_at: null },
          'new-pricing': {
            is_enabled: true,
            starts_at: null,
            ends_at: null,
            ab: {
              percentage: 0,
              salt: 'np-1',
              cohorts: [{ conditions: [{ attribute: 'country', op: 'in', values: ['DE', 'FR'] }], percentage: 100 }],
            },
          },
        },
        secrets: {
          'stripe.api_key': { type: 'text', value: 'rk_test_123' },
          'tls.client_pem': { type: 'file', versions: ['pem-v1', 'pem-v2'] },
        },
      },
      other: { kind: 'backend', keys: [KEYS.otherSecret], configs: { 'a.b': 1 } },
      web: {
        kind: 'frontend',
        keys: [KEYS.webSecret, KEYS.webPublic],
        configs: { 'ui.theme': 'dark' },
        flags: { 'dark-mode': { is_enabled: true } },
        secrets: { 'hidden.secret': { type: 'text', value: 'never-served' } },
      },
    },
  };
}
