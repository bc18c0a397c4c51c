/**
 * What an app declares about the keys it reads: a Standard Schema validator per
 * config key, the flag keys it uses, and whether other keys are compile errors.
 * The types derived here give `client.config(key)` the schema's output type.
 *
 * @packageDocumentation
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ConfigValue, SecretType } from '@vane/client-core';

/** A validator of one config value: anything implementing Standard Schema v1 (zod, valibot, arktype, …). */
export type ConfigValidator = StandardSchemaV1;

/**
 * The `schema` option: validators for the configs the app relies on, and the
 * flags it uses. Build it with {@link defineSchema} so that key literals are kept.
 */
export interface VaneSchema {
  /**
   * A validator per config key. Every value is checked before it goes live; a
   * value that fails keeps the key's last valid value. A key is required unless
   * its validator accepts `undefined` (`.optional()`, a default).
   */
  readonly configs?: { readonly [key: string]: ConfigValidator };
  /** The flag keys the app uses (types only: `@FeatureFlag()`, `@Flag()`, `client.flag()`). */
  readonly flags?: readonly string[];
  /**
   * The secret names the app reads, each with its type (types only: with
   * `strict`, `secret()` takes the text ones, `secretFile()` the file ones).
   * `vane types` writes it from the service.
   */
  readonly secrets?: { readonly [name: string]: SecretType };
  /**
   * `true`: reading a config, flag or secret key that the schema does not list is a
   * compile error. @default false
   */
  readonly strict?: boolean;
}

/**
 * Declares a schema, keeping its key literals for the types.
 *
 * @example
 * ```ts
 * const schema = defineSchema({
 *   configs: { 'db.pool.max': z.coerce.number().int().min(1) },
 *   flags: ['new-checkout'],
 *   strict: true,
 * });
 * ```
 */
export function defineSchema<const S extends VaneSchema>(schema: S): S {
  return schema;
}

/**
 * Register your schema once to type every read in the app (including Nest
 * decorators and `req.vane`, which cannot see your options):
 *
 * @example
 * ```ts
 * declare module '@vane/client' {
 *   interface VaneRegister { schema: typeof schema }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface users augment
export interface VaneRegister {}

/** The schema registered through {@link VaneRegister}, or `undefined` when none is. */
export type RegisteredSchema = VaneRegister extends { schema: infer S extends VaneSchema } ? S : undefined;

type ConfigsOf<S> = S extends { readonly configs: infer C } ? C : Record<never, never>;

/** A string that keeps editor completion of literal keys (`'a' | 'b' | (string & {})`). */
type AnyString = string & Record<never, never>;

/** The config keys a schema lists (`never` without a schema). */
export type ListedConfigKey<S> = keyof ConfigsOf<S> & string;

/** The config keys a schema allows: the listed ones, plus any string unless the schema is strict. */
export type ConfigKey<S> = S extends { readonly strict: true }
  ? keyof ConfigsOf<S> & string
  : (keyof ConfigsOf<S> & string) | AnyString;

/** The type a read of `K` returns: the validator's output for a listed key, a JSON config value otherwise. */
export type ConfigOutput<S, K> = K extends keyof ConfigsOf<S>
  ? ConfigsOf<S>[K] extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<ConfigsOf<S>[K]>
    : ConfigValue
  : ConfigValue;

/** The flag keys a schema allows: the listed ones, plus any string unless the schema is strict. */
export type FlagKey<S> = S extends { readonly flags: readonly (infer F extends string)[] }
  ? S extends { readonly strict: true }
    ? F
    : F | AnyString
  : string;

/**
 * A config's type without a validator: what `vane types` declares for each
 * key, from the JSON type of its value on the service. Types only; nothing
 * validates it at run time.
 */
export type DeclaredConfig<T extends ConfigValue> = StandardSchemaV1<unknown, T>;

type SecretsOf<S> = S extends { readonly secrets: infer X } ? X : never;

/**
 * The secret names of type `T` a schema allows: with `strict`, the listed
 * names of that type only; otherwise any string.
 */
export type SecretKey<S, T extends SecretType = SecretType> = S extends {
  readonly strict: true;
  readonly secrets: object;
}
  ? { [K in keyof SecretsOf<S>]: SecretsOf<S>[K] extends T ? K : never }[keyof SecretsOf<S>] & string
  : string;

/** Config keys of the registered schema that read as its output type (none without one). */
export type RegisteredConfigKey = ListedConfigKey<RegisteredSchema>;

/** Config keys read with a JSON-typed result: any string, unless the registered schema is strict. */
export type UnlistedConfigKey = RegisteredSchema extends { readonly strict: true } ? never : string;
