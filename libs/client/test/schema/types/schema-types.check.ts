// Type tests for reads typed by a registered schema. Compiled by schema-types.spec.ts; every
// `@ts-expect-error` line must be an error, every other line must compile.
import { type VaneClient } from '@vane/client';
import { type schema } from '../app-schema.js';

// #region register
declare module '@vane/client' {
  interface VaneRegister {
    schema: typeof schema;
  }
}
// #endregion register

declare const client: VaneClient;

// Listed keys read as the validator's output type.
const poolMax: number = client.config('db.pool.max');
const discount: number = client.config('pricing.discount');
const timeout: number = client.config('http.timeout_ms');
const apiUrl: string | undefined = client.config('api.url');
const withDefault: string = client.config('api.url', 'https://fallback.example/');

// @ts-expect-error the pool size is a number, not a string
const wrong: string = client.config('db.pool.max');
// @ts-expect-error an optional key may be undefined
const notOptional: string = client.config('api.url');
// @ts-expect-error strict: a key the schema does not list is a compile error
client.config('db.host');
// @ts-expect-error strict: configLookup too
client.configLookup('db.host');

// Flags: the listed keys only.
const on: boolean = client.flag('new-checkout');
client.flagState('dark-mode');
// @ts-expect-error strict: an unlisted flag is a compile error
client.flag('beta');

export { poolMax, discount, timeout, apiUrl, withDefault, wrong, notOptional, on };
