import type { FlagOptions } from './flag-options.interface.js';
import type { SecretOptions } from './secret-options.interface.js';

/** A parameter recorded by `@Secret()` or `@Flag()`, for the startup check and the A/B batch. @internal */
export type VaneParamMetadata =
  | { readonly kind: 'secret'; readonly key: string; readonly index: number; readonly options: SecretOptions }
  | { readonly kind: 'flag'; readonly key: string; readonly index: number; readonly options: FlagOptions };
