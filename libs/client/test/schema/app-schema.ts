// The schema the README shows: checked at run time by schema.e2e-spec.ts and
// for its types by types/schema-types.check.ts.
// #region schema
import { defineSchema } from '@vane/client';
import { z } from 'zod';

export const schema = defineSchema({
  configs: {
    // A numeric string pushed by mistake ("20") is coerced; -1 or "abc" is refused.
    'db.pool.max': z.coerce.number().int().min(1).max(500),
    'pricing.discount': z.number().min(0).max(1),
    // Optional: the start does not fail when the service has no value for it.
    'api.url': z.url().optional(),
    // A default is served while the service has no value.
    'http.timeout_ms': z.number().int().positive().default(5000),
  },
  flags: ['new-checkout', 'dark-mode'],
  strict: true,
});
// #endregion schema
