/**
 * Why a flag guard refused a request: the one refusal shape of every Vane adapter.
 *
 * @packageDocumentation
 */
import type { VaneReader } from '../vane-reader.js';

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

/** The refusal of `key` by a guard reading `reader` (the request's reader, pinned or live). */
export function flagDenialOf(reader: Pick<VaneReader, 'flagState'>, key: string, ab: boolean): FlagDenial {
  return { key, reason: reader.flagState(key).defined ? 'off' : 'undefined', ab };
}
