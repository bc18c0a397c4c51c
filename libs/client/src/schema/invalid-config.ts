/**
 * A config value that failed its schema: what readers are told about it.
 *
 * @packageDocumentation
 */

/** A config key whose current value failed its validator. Carries the issues, never the value. */
export interface InvalidConfig {
  /** The config key. */
  readonly key: string;
  /** The validator's issues, as `path: message` lines (the value itself is never included). */
  readonly issues: readonly string[];
  /** The revision that brought the invalid value. */
  readonly revision: number;
  /** Whether readers still get an earlier valid value (`true`) or the key reads as missing (`false`). */
  readonly keptLastValid: boolean;
}

/** Listener given to `client.onInvalid`. Exceptions it throws are logged, never propagated. */
export type InvalidConfigListener = (invalid: InvalidConfig) => void;
