/**
 * The JSON Schemas (2020-12, OpenAPI 3.1's dialect) the operations tables
 * declare their answers with, and the shapes several answers share. The
 * OpenAPI document (`src/openapi/`) reads them from the tables as they are
 * written here; `#/components/schemas/...` names a shape of its
 * `WIRE_SCHEMAS`.
 */

/** A JSON Schema (2020-12), as a plain JSON object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** A reference to a schema of the OpenAPI document's `components.schemas`. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** An object whose listed members are all required but the `optional` ones. */
export function object(properties: Readonly<Record<string, JsonSchema>>, optional: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties).filter((name) => !optional.includes(name)) };
}

/** An array of `items`. */
export function arrayOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

/** `{"revision"}`: the service's revision after a change. */
export const REVISION_ANSWER: JsonSchema = ref('Revision');

/** The answer of a change that moves the service's revision and says nothing else: `200 {"revision"}`. */
export const REVISION_ONLY = Object.freeze({
  description: '{"revision"}',
  success: Object.freeze({ 200: REVISION_ANSWER }),
});

/** An admin token as the admin API lists it (never the token). */
export const TOKEN_LISTING: JsonSchema = object(
  {
    name: { type: 'string' },
    scope: ref('TokenScope'),
    rights: arrayOf(ref('AdminRight')),
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
  },
  ['scope', 'last_used_at'],
);

/** An API key as the admin API lists it: its hint, never the key. */
export const KEY_MEMBERS: Readonly<Record<string, JsonSchema>> = {
  hint: { type: 'string' },
  type: { type: 'string', enum: ['secret', 'public'] },
  revoked: { type: 'boolean' },
};

/** A secret as the admin API lists it: its versions, never a value. */
export const SECRET_LISTING: JsonSchema = object({
  type: { type: 'string', enum: ['text', 'file'] },
  versions: arrayOf(object({ version: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' } })),
});
