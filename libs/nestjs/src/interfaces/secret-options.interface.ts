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
