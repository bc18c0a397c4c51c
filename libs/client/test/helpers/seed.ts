import type { VaneServerSeed } from '@vane/server';

export const SHOP_SK = 'svs_shop_e2e_secret_key_000001';
export const SHOP_PK = 'svp_shop_e2e_public_key_000001';
export const WEB_SK = 'svs_web_e2e_secret_key_0000001';
export const TLS_PEM = '-----BEGIN CERTIFICATE-----\nTOPSECRET-PEM\n-----END CERTIFICATE-----\n';

/** A seed for the client's end-to-end tests. */
export function seed(): VaneServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null },
    services: {
      shop: {
        kind: 'backend',
        keys: [SHOP_SK, SHOP_PK],
        configs: {
          'db.host': 'db.internal',
          'db.pool.max': 20,
          'pricing.discount': 0.15,
          'maintenance.enabled': false,
          'cors.origins': ['https://a.example'],
          'banner.text': null,
          'pair.a': 'v1',
          'pair.b': 'v1',
        },
        flags: {
          'new-checkout': {
            is_enabled: true,
            starts_at: null,
            ends_at: null,
            ab: { percentage: 50, salt: 'nc-1', cohorts: [] },
          },
          'dark-mode': { is_enabled: false, starts_at: null, ends_at: null },
          'always-on': {
            is_enabled: true,
            starts_at: null,
            ends_at: null,
            ab: { percentage: 100, salt: 's', cohorts: [] },
          },
        },
        secrets: {
          'stripe.api_key': { type: 'text', value: 'rk_test_TOPSECRET' },
          'tls.client_pem': { type: 'file', versions: ['pem-v1-TOPSECRET', TLS_PEM] },
        },
      },
      web: {
        kind: 'frontend',
        keys: [WEB_SK],
        configs: { 'ui.theme': 'dark' },
      },
    },
  };
}
