/**
 * The values Vane carries, named once for the client, the server and
 * the adapters (PROTOCOL §5: a config keeps its JSON type on the wire).
 *
 * @packageDocumentation
 */

/** Any JSON value (elements of array config values). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A config value: JSON string, number, boolean, array or null (never an object). */
export type ConfigValue = string | number | boolean | null | readonly JsonValue[];

/** How a secret is delivered: its text in memory, or a file on disk (`type` on the wire; `text` by default on write). */
export type SecretType = 'text' | 'file';
