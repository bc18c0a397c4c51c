// Type tests for reads typed by a registered schema. Compiled by schema-types.spec.ts; every
// `@ts-expect-error` line must be an error, every other line must compile.
import type { VaneClient } from '@vane/client';
import type { RequestVane } from '@vane/express';
import { Flag, FeatureFlag, type VaneObservables } from '@vane/nestjs';
import type { Observable } from 'rxjs';
import type { schema } from '../app-schema.js';

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

// req.vane in Express reads the same way.
declare const reqVane: RequestVane;
const reqPoolMax: number = reqVane.config('db.pool.max');
reqVane.flag('new-checkout');
// @ts-expect-error strict: unlisted config through req.vane
reqVane.config('db.host');
// @ts-expect-error strict: unlisted flag through req.vane
reqVane.flag('beta');

// Nest observables: outputs and keys from the schema.
declare const live: VaneObservables;
const poolMax$: Observable<number> = live.config$('db.pool.max');
const apiUrl$: Observable<string | undefined> = live.config$('api.url');
live.flag$('dark-mode');
// @ts-expect-error the observable carries numbers
const wrong$: Observable<string> = live.config$('db.pool.max');
// @ts-expect-error strict: unlisted config key
live.config$('db.host');
// @ts-expect-error strict: unlisted flag key
live.flag$('beta');

// Nest decorators take the schema's flag keys.
export class CheckoutController {
  @FeatureFlag('new-checkout')
  page(@Flag('dark-mode') dark: boolean): boolean {
    return dark;
  }

  // @ts-expect-error strict: an unlisted flag in @FeatureFlag()
  @FeatureFlag(['new-checkout', 'beta'])
  other(): void {}

  // @ts-expect-error strict: an unlisted flag in @Flag()
  third(@Flag('beta') beta: boolean): boolean {
    return beta;
  }
}

export { reqPoolMax, poolMax$, apiUrl$, wrong$ };
export { poolMax, discount, timeout, apiUrl, withDefault, wrong, notOptional, on };
