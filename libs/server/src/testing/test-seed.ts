/**
 * A small seed for tests: a backend service `shop` with configs of every
 * JSON type, plain, A/B and off flags, a text and a file secret; a second
 * backend `other`; a frontend `web`.
 *
 * @packageDocumentation
 */
import type { VaneServerSeed } from '../server/start-vane-server.js';

/** Keys of {@link testSeed}. */
export const TEST_KEYS = {
  shopSecret: 'svs_shop_test_secret',
  shopPublic: 'svp_shop_test_public',
  /** Revoked: answers 401. */
  shopRevoked: 'svs_shop_test_revoked',
  otherSecret: 'svs_other_test_secret',
  webSecret: 'svs_web_test_secret',
  webPublic: 'svp_web_test_public',
} as const;

/** Secret values of {@link testSeed}: none may ever appear in a log line, an error or a public answer. */
export const TEST_SECRET_VALUES = {
  /** `shop`'s text secret `stripe.api_key`. */
  stripe: 'rk_test_123',
  /** `shop`'s file secret `tls.client_pem`, version 1. */
  pemV1: 'pem-v1',
  /** `shop`'s file secret `tls.client_pem`, version 2 (the current one). */
  pemV2: 'pem-v2',
  /** `web`'s secret, which a frontend service never serves. */
  hidden: 'never-served',
} as const;

/**
 * A fresh copy of the test seed (change it freely):
 *
 * - `shop` (backend; {@link TEST_KEYS}): configs `db.host` `'localhost'`,
 *   `db.pool.max` `10`, `pricing.discount` `0.15`, `maintenance.enabled`
 *   `false`, `cors.origins` `['https://a.example']`, `banner.text` `null`,
 *   `port.text` `'5'`; flags `new-checkout` on, `beta` off, `new-pricing` A/B
 *   (on only for `country` DE or FR); secrets `stripe.api_key` (text) and
 *   `tls.client_pem` (file, two versions).
 * - `other` (backend): config `a.b` `1`.
 * - `web` (frontend): config `ui.theme` `'dark'`, flag `dark-mode` on, a
 *   secret it never serves.
 *
 * @example
 * ```ts
 * const seed = testSeed();
 * seed.services!.shop!.configs!['feature.limit'] = 3;
 * const server = await startVaneServer({ seed });
 * ```
 */
export function testSeed(): VaneServerSeed {
  return {
    tenant: { overdue_days: 0, ab_addon: true, quarantined_until: null, write_rate_per_minute: 60 },
    services: {
      shop: {
        kind: 'backend',
        keys: [TEST_KEYS.shopSecret, TEST_KEYS.shopPublic],
        revoked_keys: [TEST_KEYS.shopRevoked],
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
          'stripe.api_key': { type: 'text', value: TEST_SECRET_VALUES.stripe },
          'tls.client_pem': { type: 'file', versions: [TEST_SECRET_VALUES.pemV1, TEST_SECRET_VALUES.pemV2] },
        },
      },
      other: { kind: 'backend', keys: [TEST_KEYS.otherSecret], configs: { 'a.b': 1 } },
      web: {
        kind: 'frontend',
        keys: [TEST_KEYS.webSecret, TEST_KEYS.webPublic],
        configs: { 'ui.theme': 'dark' },
        flags: { 'dark-mode': { is_enabled: true } },
        secrets: { 'hidden.secret': { type: 'text', value: TEST_SECRET_VALUES.hidden } },
      },
    },
  };
}
