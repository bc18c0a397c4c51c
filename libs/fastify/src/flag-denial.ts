/**
 * Why a flag guard refused a request: the one refusal shape of every Vane adapter.
 *
 * @packageDocumentation
 */

/**
 * Why a guard refused a request, as given to a `handler` or an `error`
 * factory of the flag-off options.
 */
export interface FlagDenial {
  /** The flag that is off (the first one, when a guard lists several). */
  readonly key: string;
  /**
   * `'undefined'` when the snapshot does not define the flag at all (a typo,
   * or not created yet); `'off'` when it is defined and off (for an A/B
   * flag: evaluated off for this user, or the evaluation failed closed).
   */
  readonly reason: 'undefined' | 'off';
  /** True when the flag was evaluated for the user through the A/B add-on. */
  readonly ab: boolean;
}
