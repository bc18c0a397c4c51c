/**
 * Statements with a bound: a write, a check or a rate-limit take never
 * waits on an unreachable or stalled PostgreSQL for longer than its bound,
 * and what failed is classed as surely not committed, or unknown.
 */
import type { TimerClock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';

/** A statement of the write path, the check or the pruning that takes longer is given up on, in ms. */
export const STATEMENT_MS = 2000;

/**
 * A query of postgres.js: a promise that can be cancelled (dropped while
 * queued in the driver, never sent). `canceller` is postgres.js's own: its
 * `cancel()` drops the promise of the cancel request it sends.
 */
export type CancellableQuery<T> = Promise<T> & {
  cancel?(): unknown;
  canceller?: ((query: CancellableQuery<T>) => unknown) | null;
};

/**
 * Cancels `query`, the cancel request's failure handled: postgres.js 3.4's
 * `cancel()` sends it on a connection of its own and drops its promise, so a
 * reset of that connection (PostgreSQL stopping) was an unhandled rejection.
 */
function cancelQuery<T>(query: CancellableQuery<T>): void {
  const canceller = query.canceller;
  if (typeof canceller !== 'function') {
    void Promise.resolve(query.cancel?.()).catch(() => undefined);
    return;
  }
  // As `cancel()` does: once only.
  query.canceller = null;
  void Promise.resolve(canceller(query)).catch(() => undefined);
}

/** A statement that ran past its bound: the database did not answer it in time. */
export class StatementLateError extends Error {
  /** Stable code, as the driver's errors carry one. */
  readonly code = 'VANE_STATEMENT_LATE';

  constructor(what: string, ms: number) {
    super(`PostgreSQL did not answer ${what} within ${ms} ms`);
    this.name = 'StatementLateError';
  }
}

/** Options of {@link bounded}. */
export interface BoundOptions {
  /** @default {@link STATEMENT_MS} */
  readonly ms?: number;
  /** @default the system clock */
  readonly clock?: TimerClock;
}

/**
 * `query`'s result, or a {@link StatementLateError} once its bound passed
 * (the query is then cancelled: dropped where it was not sent yet).
 */
export async function bounded<T>(query: CancellableQuery<T>, what: string, options: BoundOptions = {}): Promise<T> {
  const ms = options.ms ?? STATEMENT_MS;
  let cancel: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    const timer = (options.clock ?? systemClock).setTimer(() => {
      cancelQuery(query);
      reject(new StatementLateError(what, ms));
    }, ms);
    cancel = () => timer.cancel();
  });
  // The loser of the race must not be reported as unhandled.
  late.catch(() => undefined);
  query.catch(() => undefined);
  try {
    return await Promise.race([query, late]);
  } finally {
    cancel?.();
  }
}

/** Connection errors raised before anything was sent on the connection: what was to be sent never was. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // The pool was ending: the query was refused before it was sent. (CONNECTION_DESTROYED is not here: a
  // connection terminated with a statement sent on it fails that statement with it too.)
  'CONNECTION_ENDED',
]);

/**
 * Whether a failed statement surely committed nothing: PostgreSQL itself
 * answered with an error (a statement that fails is rolled back), or the
 * connection was never made. A connection lost after the statement was
 * sent, or no answer within the bound, leaves the outcome unknown.
 */
export function refusedBeforeCommit(error: unknown): boolean {
  if (error instanceof Error && error.name === 'PostgresError') return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NEVER_SENT_CODES.has(code);
}

/** Whether PostgreSQL itself answered with an error (it was reachable, and refused). */
export function answeredByPostgres(error: unknown): boolean {
  return error instanceof Error && error.name === 'PostgresError';
}
