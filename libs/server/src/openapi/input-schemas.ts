/**
 * Request bodies in the OpenAPI document, converted from the valibot schemas
 * the routes check them with, so the document says what the server takes.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { JsonSchema } from './openapi-types.js';

/**
 * The JSON Schema (2020-12) of a valibot schema. Checks valibot cannot
 * express in JSON Schema (custom checks, transforms) are left out: the
 * document then says less than the server checks, never more. The
 * `$schema` member is dropped (OpenAPI 3.1 names the dialect once), and so
 * is an empty `required`.
 */
export function inputSchema(schema: v.GenericSchema): JsonSchema {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' });
  return withoutEmptyRequired(converted);
}

function withoutEmptyRequired(schema: Readonly<Record<string, unknown>>): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'required' && Array.isArray(value) && value.length === 0) continue;
    out[keyword] = deep(value);
  }
  return out;
}

function deep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deep);
  if (typeof value === 'object' && value !== null) return withoutEmptyRequired(value as Record<string, unknown>);
  return value;
}
