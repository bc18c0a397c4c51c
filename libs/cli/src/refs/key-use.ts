/**
 * One place in an app's code that reads a Vane key.
 *
 * @packageDocumentation
 */

/** What a key names on the service. */
export type KeyKind = 'config' | 'flag' | 'secret';

/** A read of a key, found by `vane refs`. */
export interface KeyUse {
  /** What the key names. */
  readonly kind: KeyKind;
  /** The key; `null` when it is built at run time (see `expression`). */
  readonly key: string | null;
  /** The argument's source text, for a key built at run time. */
  readonly expression?: string;
  /** How it is read: `@FeatureFlag`, `config`, `requireFlag`, `getBooleanValue`, `config.vane.flags`, … */
  readonly via: string;
  /** The file, relative to the scanned root, with `/` separators. */
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}
