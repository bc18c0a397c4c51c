/** Options of `@Flag()`. */
export interface FlagOptions {
  /**
   * Evaluate the flag for the requesting user through the A/B add-on; batched
   * with every other A/B flag of the request into one call.
   * @default false (the flag's server-computed `is_active`)
   */
  readonly ab?: boolean;
}
