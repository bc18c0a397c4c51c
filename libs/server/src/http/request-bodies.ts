/**
 * The shapes of the request bodies the routes read, as valibot schemas, and
 * the one function that checks a body against one. The values inside
 * (config values, flags, trusts, tenant settings) are checked by the
 * domain's parsers (`validation/`), which name the JSON path at fault.
 */
import * as v from 'valibot';
import { appendJsonPath } from '../json/json-path.js';
import { TRUST_PROVIDERS } from '../domain/model.js';
import { describeType } from '../validation/index.js';
import { HttpError } from '../errors/http-error.js';

/** Keys per evaluate-ab call (PROTOCOL §7). */
export const MAX_AB_KEYS = 200;

/** Longest `token` accepted by the token exchange, in characters (a signed STS request or a JWT is far smaller). */
export const MAX_PLATFORM_TOKEN_LENGTH = 64 * 1024;

/** A body that must be a JSON object; the route reads its members. */
export const objectBody = v.record(v.string(), v.unknown());

/** `POST /v1/flags/evaluate-ab` (PROTOCOL §7). */
export const evaluateAbBody = v.object({
  keys: v.pipe(
    v.array(v.string()),
    v.minLength(1, `expected an array of 1 to ${MAX_AB_KEYS} flag keys`),
    v.maxLength(MAX_AB_KEYS, `expected an array of 1 to ${MAX_AB_KEYS} flag keys`),
  ),
  user_id: v.string(),
  attributes: v.optional(
    v.pipe(
      // First: valibot's record would take an array as an object of its indices.
      v.custom<Record<string, unknown>>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
        'expected an object of strings',
      ),
      v.record(v.string(), v.string()),
    ),
  ),
});

/** `POST /v1/auth/token-exchange` (PROTOCOL §8). */
export const tokenExchangeBody = v.object({
  provider: v.picklist(TRUST_PROVIDERS, `expected one of ${TRUST_PROVIDERS.join(', ')}`),
  token: v.pipe(
    v.string(),
    v.minLength(1, 'expected a non-empty string'),
    v.maxLength(MAX_PLATFORM_TOKEN_LENGTH, `expected at most ${MAX_PLATFORM_TOKEN_LENGTH} characters`),
  ),
});

/**
 * Checks `body` against `schema`.
 *
 * @param what - names the body in messages, e.g. `a JSON object {"provider", "token"}`.
 * @throws HttpError 400 naming the first member at fault (`keys[2]: …`). Messages describe a wrong
 *   value by its JSON type only: valibot's own messages quote the value, which may be a secret.
 */
export function parseBody<TSchema extends v.GenericSchema>(
  schema: TSchema,
  body: unknown,
  what: string,
): v.InferOutput<TSchema> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw HttpError.invalid(`the body must be ${what}, received ${describeType(body)}`);
  }
  const result = v.safeParse(schema, body);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = (issue.path ?? []).reduce<string>((at, item) => appendJsonPath(at, item.key as string | number), '');
  // A message given in the schema is kept; valibot's defaults ("Invalid type: Expected … but received …") are not.
  const message = issue.message.startsWith('Invalid ')
    ? `expected ${issue.expected ?? 'something else'}, received ${describeType(issue.input)}`
    : issue.message;
  throw HttpError.invalid(path === '' ? message : `${path}: ${message}`);
}
