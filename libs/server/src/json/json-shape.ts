/**
 * Compile-time checks that two declarations of one shape (a public type
 * and the schema that reads it) accept the same values, so neither can
 * drift from the other unnoticed.
 *
 * @module
 */
import type { JsonValue } from '@vane/common';

/**
 * `T` as a JSON document can hold it: every `unknown` (what a schema says
 * of "any JSON value") read as a {@link JsonValue}, and every array as a
 * read-only one, so two declarations compare by what they accept, not by
 * how they spell it.
 */
export type AsJson<T> = unknown extends T
  ? JsonValue
  : [T] extends [JsonValue]
    ? [JsonValue] extends [T]
      ? JsonValue
      : MembersAsJson<T>
    : MembersAsJson<T>;

/** {@link AsJson} of each element or member of `T`. */
type MembersAsJson<T> =
  T extends ReadonlyArray<infer TItem>
    ? ReadonlyArray<AsJson<TItem>>
    : T extends object
      ? { [K in keyof T]: AsJson<T[K]> }
      : T;

/** `true` when every value of `TFrom` is a value of `TTo`, else `false`. */
export type Assignable<TFrom, TTo> = [TFrom] extends [TTo] ? true : false;

/**
 * Compiles only when given `true`:
 * `type Check = Holds<Assignable<A, B>>` fails to compile once `A` accepts
 * something `B` does not.
 */
export type Holds<TCheck extends true> = TCheck;
