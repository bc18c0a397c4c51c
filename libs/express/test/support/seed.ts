import type { LocalServerSeed } from '@vane/local-server';

/** API keys of the test seed (the secret key must never appear in a response). */
export const KEYS = {
  secret: 'svs_shop_express_test_secret',
  public: 'svp_shop_express_test_public',
  webSecret: 'svs_web_express_test_secret',
} as const;

/** Secret values of the test seed: none may ever appear in a response body meant for errors. */
export const SECRET_VALUES = {
  stripe: 'rk_test_express_123',
  pemV1: 'pem-express-v1',
  pemV2: 'pem-express-v2',
} as const;

/** A backend service `shop` and a frontend service `web`. */
export function testSeed(): LocalServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 60 },
    services: {
      shop: {
        kind: 'backend',
        keys: [KEYS.secret, KEYS.public],
        configs: {
          'db.host': 'localhost',
          'db.pool.max': 10,
          'pricing.discount': 0.15,
          'maintenance.enabled': false,
          'cors.origins': ['https://a.example'],
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
          // On for everyone.
          'big-banner': { is_enabled: true, ab: { percentage: 100, salt: 'bb-1', cohorts: [] } },
        },
        secrets: {
          'stripe.api_key': { type: 'text', value: SECRET_VALUES.stripe },
          'tls.client_pem': { type: 'file', versions: [SECRET_VALUES.pemV1, SECRET_VALUES.pemV2] },
        },
      },
      web: {
        kind: 'frontend',
        keys: [KEYS.webSecret],
        configs: { 'ui.theme': 'dark' },
        secrets: { 'hidden.secret': { type: 'text', value: 'never-served' } },
      },
    },
  };
}
