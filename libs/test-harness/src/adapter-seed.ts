/**
 * A seed shaped like an app's, for tests of the framework adapters (Express,
 * Fastify, Nest): a backend `shop` whose flags are on, off, on for everyone
 * through A/B, and on only for some users (by `country`, by `plan`), with a
 * text and a file secret; a frontend `web`.
 *
 * @packageDocumentation
 */
import type { VaneServerSeed } from '@vane/server';

/** API keys of {@link adapterSeed} (the secret key must never appear in a response). */
export const ADAPTER_KEYS = {
  secret: 'svs_shop_express_test_secret',
  public: 'svp_shop_express_test_public',
  webSecret: 'svs_web_express_test_secret',
} as const;

/** Secret values of {@link adapterSeed}: none may ever appear in a response body meant for errors. */
export const ADAPTER_SECRET_VALUES = {
  stripe: 'rk_test_express_123',
  pemV1: 'pem-express-v1',
  pemV2: 'pem-express-v2',
} as const;

/**
 * A fresh copy of the adapter seed:
 *
 * - `shop` (backend; {@link ADAPTER_KEYS}): configs `db.host`, `db.pool.max`,
 *   `pricing.discount`, `maintenance.enabled`, `cors.origins`, `banner.text`;
 *   flags `new-checkout` on, `beta` off, `new-pricing` on for `country` DE or
 *   FR, `dark-mode` on for `plan` pro, `big-banner` on for everyone (A/B
 *   100 %); secrets `stripe.api_key` (text) and `tls.client_pem` (file, two versions).
 * - `web` (frontend): config `ui.theme`, a secret it never serves.
 */
export function adapterSeed(): VaneServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 60 },
    services: {
      shop: {
        kind: 'backend',
        keys: [ADAPTER_KEYS.secret, ADAPTER_KEYS.public],
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
          'stripe.api_key': { type: 'text', value: ADAPTER_SECRET_VALUES.stripe },
          'tls.client_pem': { type: 'file', versions: [ADAPTER_SECRET_VALUES.pemV1, ADAPTER_SECRET_VALUES.pemV2] },
        },
      },
      web: {
        kind: 'frontend',
        keys: [ADAPTER_KEYS.webSecret],
        configs: { 'ui.theme': 'dark' },
        secrets: { 'hidden.secret': { type: 'text', value: 'never-served' } },
      },
    },
  };
}
