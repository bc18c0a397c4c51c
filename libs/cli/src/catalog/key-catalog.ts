/**
 * What `vane types` and `vane refs` know of a service: its keys and their
 * types, never a config value or a secret.
 *
 * @packageDocumentation
 */

/** A flag's state as a source tells it: enough to say whether it is fully on or off. */
export interface CatalogFlag {
  /** The flag's `is_enabled`. */
  readonly isEnabled: boolean;
  /** RFC 3339, or `null` when unbounded. */
  readonly startsAt: string | null;
  /** RFC 3339, or `null` when unbounded. */
  readonly endsAt: string | null;
  /**
   * Whether an A/B rule splits the flag's users (a percentage under 100, or
   * cohorts); `undefined` when the source cannot tell (a service key's sync
   * does not carry the rule).
   */
  readonly split: boolean | undefined;
}

/**
 * A service's keys: each config with the TypeScript type of its JSON value
 * (`number`, `readonly string[]`, …), each flag, each secret with its type.
 */
export interface KeyCatalog {
  /** Where the keys were read from, for the generated file's header and messages (never a credential). */
  readonly origin: string;
  /**
   * The seed file's absolute path, when the keys were read from a seed: the
   * generated file names it relative to itself, the same on every machine.
   */
  readonly seedFile?: string;
  /** The service's slug. */
  readonly slug: string;
  /** Config key → TypeScript type text of its value. */
  readonly configs: ReadonlyMap<string, string>;
  /** Flag key → its state. */
  readonly flags: ReadonlyMap<string, CatalogFlag>;
  /** Secret name → its type; `null` when the source cannot see secrets (a public key, a frontend service). */
  readonly secrets: ReadonlyMap<string, 'text' | 'file'> | null;
}
