/**
 * How an error answer of the service reads (PROTOCOL §3): its body, and the
 * code a client raises for it. The clients build their own messages.
 *
 * @packageDocumentation
 */
import type { VaneErrorCode } from './errors.js';
import { parseJsonObject } from './json-object.js';

/** The members of an error body a client uses; any of them may be absent. */
export interface ErrorBody {
  /** The `error` member (`"unauthorized"`, `"quarantined"`…). */
  readonly serverCode: string | undefined;
  /** The `message` member, for people. */
  readonly serverMessage: string | undefined;
  /** A quarantine's `until`, in milliseconds since the epoch. */
  readonly untilMs: number | undefined;
}

/** A member that is a string, or `undefined`. */
const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Reads an error answer's body; anything unreadable is absent. */
export function readErrorBody(text: string): ErrorBody {
  const { error, message, until } = parseJsonObject(text);
  const untilMs = Date.parse(stringOf(until) ?? '');
  return {
    serverCode: stringOf(error),
    serverMessage: stringOf(message),
    untilMs: Number.isNaN(untilMs) ? undefined : untilMs,
  };
}

/**
 * The code a client raises for an error answer of a Vane service (one that
 * carried `Vane-Protocol`): a 429 is `quarantined` or `rate_limited` by its
 * `error` member alone; a 403 means the A/B add-on only on evaluate-ab. A
 * secret write's answer is read by {@link secretWriteErrorCodeFor}, which
 * adds its 504; here a 504 is unexpected.
 *
 * @param operation - what was asked (`evaluate-ab` is the only one that changes the answer).
 */
export function errorCodeFor(status: number, serverCode: string | undefined, operation: string): VaneErrorCode {
  switch (status) {
    case 401:
      return 'VANE_UNAUTHORIZED';
    case 402:
      return 'VANE_BILLING_OVERDUE';
    case 403:
      return operation === 'evaluate-ab' ? 'VANE_ADDON_NOT_AVAILABLE' : 'VANE_UNEXPECTED_RESPONSE';
    case 404:
      return 'VANE_NOT_FOUND';
    case 429:
      return serverCode === 'quarantined' ? 'VANE_QUARANTINED' : 'VANE_RATE_LIMITED';
    default:
      return 'VANE_UNEXPECTED_RESPONSE';
  }
}

/**
 * The code a client raises for an error answer to a secret write: as
 * {@link errorCodeFor}, and a 504 `commit_outcome_unknown` is
 * `VANE_COMMIT_OUTCOME_UNKNOWN`, the one answer only a write gets. Apart
 * from `errorCodeFor` so that a client that never writes (`@vane/browser`)
 * does not carry it.
 */
export function secretWriteErrorCodeFor(status: number, serverCode: string | undefined): VaneErrorCode {
  // A write the service sent to its store with no answer back (PROTOCOL §3): it may have landed.
  return status === 504 && serverCode === 'commit_outcome_unknown'
    ? 'VANE_COMMIT_OUTCOME_UNKNOWN'
    : errorCodeFor(status, serverCode, 'secret-write');
}

/** The header every answer of a Vane service carries (PROTOCOL §3), lower case. */
export const PROTOCOL_HEADER = 'vane-protocol';
