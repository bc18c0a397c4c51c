/**
 * The answers the OpenAPI document repeats: the error answers of PROTOCOL §3
 * by status, and JSON bodies.
 */
import type { JsonSchema, OpenApiHeader, OpenApiResponse } from './openapi-types.js';
import { ref } from '../http/operations/answer-schemas.js';

/** What each error status means, for the document's answers. */
const ERROR_MEANINGS: Readonly<Record<number, string>> = {
  400: '`invalid_request`: malformed JSON, a member of the wrong type, a missing Host header, bad percent-encoding',
  401: '`unauthorized`: no credential, or one that is not valid here',
  402: '`billing_overdue`: the tenant has invoices overdue by more than 14 days',
  403: '`forbidden` (the admin token lacks the right, or its scope is too narrow) or `addon_inactive`',
  404: "`not_found`: an unknown service, key, route, or one outside the token's scope",
  409: '`conflict`: the change cannot be made in the current state',
  413: '`payload_too_large`: a body over 1 MiB',
  429: '`rate_limited` or `quarantined`; `Retry-After` says when to try again',
  503: '`store_unavailable`: the store cannot take the write now; it is not committed, ever',
  504: '`commit_outcome_unknown`: the commit was sent to the store and no answer came; it may have landed (read the revision or the audit before retrying)',
};

/** `Retry-After`, in seconds. */
const RETRY_AFTER: OpenApiHeader = { description: 'Seconds to wait before trying again', schema: { type: 'integer' } };

/** The `Vane-Protocol: 1` header every answer under `/v1/` carries (PROTOCOL §3). */
export const PROTOCOL_HEADER: OpenApiHeader = {
  description: 'Always `1`: a Vane service answered (PROTOCOL §3)',
  schema: { type: 'string', const: '1' },
};

/** An answer with a JSON body. */
export function jsonAnswer(
  description: string,
  schema: JsonSchema,
  headers?: Readonly<Record<string, OpenApiHeader>>,
): OpenApiResponse {
  const withHeaders = headers !== undefined && Object.keys(headers).length > 0 ? { headers } : {};
  return { description, ...withHeaders, content: { 'application/json': { schema } } };
}

/**
 * The error answers of `statuses`, each with the `Error` body.
 *
 * @param headers - headers every one of them carries (`Vane-Protocol` under `/v1/`).
 */
export function errorAnswers(
  statuses: readonly number[],
  headers: Readonly<Record<string, OpenApiHeader>> = {},
): Record<string, OpenApiResponse> {
  const answers: Record<string, OpenApiResponse> = {};
  for (const status of statuses) {
    const meaning = ERROR_MEANINGS[status];
    if (meaning === undefined) throw new RangeError(`no meaning written for the error status ${status}`);
    const extra: Record<string, OpenApiHeader> = status === 429 || status === 503 ? { 'Retry-After': RETRY_AFTER } : {};
    answers[String(status)] = jsonAnswer(meaning, ref('Error'), { ...headers, ...extra });
  }
  return answers;
}
