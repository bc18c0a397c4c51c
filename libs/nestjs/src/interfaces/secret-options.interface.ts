/** Options of `@Secret()`. */
export interface SecretOptions {
  /**
   * Inject the path of a file secret (a 0600 file the client keeps current)
   * instead of the value of a text secret.
   * @default false
   */
  readonly file?: boolean;
  /**
   * Inject `undefined` when the secret is absent instead of failing the
   * request with a 500.
   * @default false
   */
  readonly optional?: boolean;
}

/** Options of `@Flag()`. */
export interface FlagOptions {
  /**
   * Evaluate the flag for the requesting user through the A/B add-on; batched
   * with every other A/B flag of the request into one call.
   * @default false (the flag's server-computed `is_active`)
   */
  readonly ab?: boolean;
}

/** A parameter recorded by `@Secret()` or `@Flag()`, for the startup check and the A/B batch. @internal */
export type VaneParamMetadata =
  | { readonly kind: 'secret'; readonly key: string; readonly index: number; readonly options: SecretOptions }
  | { readonly kind: 'flag'; readonly key: string; readonly index: number; readonly options: FlagOptions };
