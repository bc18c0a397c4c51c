/**
 * The start of a client with a last-known-good store: the service first,
 * within `initTimeoutMs`; the backup when the service fails for a reason
 * that says nothing about the caller's rights.
 *
 * @packageDocumentation
 */
import { TransportError, type VaneError } from '../errors.js';
import type { VaneLogger } from '../util/logger.js';
import type { Clock, TimerHandle, Timers } from '../util/timers.js';
import { readBackup, type UsableBackup } from './backup-reader.js';
import type { ResolvedLastKnownGood } from './last-known-good-options.js';
import { staleStartReason, type StaleStartReason } from './stale-start-reason.js';
import { UnusableBackupError } from './unusable-backup-error.js';

/** A start served from the backup. */
export interface StaleStart {
  /** The backup being served. */
  readonly backup: UsableBackup;
  /** Why the service was not used. */
  readonly reason: StaleStartReason;
  /** The error of the start (the sync's, or a timeout after `initTimeoutMs`). */
  readonly error: VaneError;
  /**
   * The initial sync when it was still running at `initTimeoutMs`: it goes
   * on, and its outcome is the first background attempt. `undefined` when
   * it had already failed.
   */
  readonly pending: Promise<void> | undefined;
}

/** What {@link startFromServiceOrBackup} needs. */
export interface StaleStartContext {
  readonly lastKnownGood: ResolvedLastKnownGood;
  /** How long the store may take to answer, in milliseconds. */
  readonly readTimeoutMs: number;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly logger: VaneLogger;
}

type Race =
  { readonly kind: 'ok' } | { readonly kind: 'failed'; readonly error: unknown } | { readonly kind: 'timeout' };

function raceTimeout(initial: Promise<void>, timeoutMs: number, timers: Timers): Promise<Race> {
  let timer: TimerHandle;
  const timeout = new Promise<Race>((resolve) => {
    timer = timers.setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
  });
  const outcome = initial.then(
    (): Race => ({ kind: 'ok' }),
    (error: unknown): Race => ({ kind: 'failed', error }),
  );
  return Promise.race([outcome, timeout]).finally(() => timers.clearTimeout(timer));
}

/** Resolves true when `p` has already fulfilled (after the pending callbacks run), false otherwise. */
async function fulfilledAlready(p: Promise<void>): Promise<boolean> {
  const probe = Symbol('pending');
  const settled = await Promise.race([
    p.then(
      () => true,
      () => false,
    ),
    Promise.resolve().then(() => probe),
  ]);
  return settled === true;
}

async function usableBackup(ctx: StaleStartContext, error: VaneError): Promise<UsableBackup | undefined> {
  const { store, identity, maxAgeMs } = ctx.lastKnownGood;
  const where = store.describe(identity.serviceId);
  try {
    const backup = await readBackup({
      store,
      identity,
      maxAgeMs,
      timeoutMs: ctx.readTimeoutMs,
      clock: ctx.clock,
      timers: ctx.timers,
    });
    if (backup === null) ctx.logger.warn(`last-known-good: no backup in ${where}; the start fails (${error.code})`);
    return backup ?? undefined;
  } catch (err) {
    if (!(err instanceof UnusableBackupError)) throw err;
    ctx.logger.warn(
      `last-known-good: ignoring the backup in ${where}: ${err.message}; the start fails (${error.code})`,
    );
    return undefined;
  }
}

/**
 * Waits for the initial sync for at most `initTimeoutMs`.
 *
 * - The sync succeeds (in time, or later when there is no usable backup): resolves `undefined`.
 * - It fails with 401, 404 or another reason that forbids the backup: rejects with that error.
 * - It fails with an outage reason, or runs past `initTimeoutMs`, and the backup is usable: resolves
 *   a {@link StaleStart} (the caller logs {@link staleStartMessage} once it serves it).
 * - Same, but there is no usable backup (none, bad, expired; a warning names the store and why):
 *   rejects with the sync's own error (after `initTimeoutMs`, once the sync has failed).
 *
 * @param initial - the initial sync (credentials included), already started.
 */
export async function startFromServiceOrBackup(
  initial: Promise<void>,
  ctx: StaleStartContext,
): Promise<StaleStart | undefined> {
  const timeoutMs = ctx.lastKnownGood.initTimeoutMs;
  const race = await raceTimeout(initial, timeoutMs, ctx.timers);
  if (race.kind === 'ok') return undefined;
  let error: VaneError;
  let reason: StaleStartReason | undefined;
  let pending: Promise<void> | undefined;
  if (race.kind === 'failed') {
    reason = staleStartReason(race.error);
    if (reason === undefined) throw race.error;
    error = race.error as VaneError;
  } else {
    reason = 'timeout';
    error = new TransportError(`initial sync: no answer within lastKnownGood.initTimeoutMs (${timeoutMs} ms)`, {
      timedOut: true,
    });
    pending = initial;
  }
  const backup = await usableBackup(ctx, error);
  if (backup === undefined) {
    // Nothing to serve: the start is what it would be without a backup.
    if (pending !== undefined) await pending;
    else throw error;
    return undefined;
  }
  // The service may have answered while the store was read: then it wins.
  if (pending !== undefined && (await fulfilledAlready(pending))) return undefined;
  return { backup, reason, error, pending };
}

/** The one line logged when a client starts stale. */
export function staleStartMessage(stale: StaleStart, where: string): string {
  const { backup, error } = stale;
  return `starting STALE from the last-known-good backup in ${where} (revision ${backup.snapshot.revision}, saved ${formatAge(backup.ageMs)} ago${backup.secrets === 'omitted' ? ', without secrets' : ''}): ${error.message}; ${stale.reason === 'billing-overdue' ? 'background sync halted (billing) until a sync() succeeds' : 'retrying the service in the background'}`;
}

/** A duration for people: seconds, minutes or hours. */
export function formatAge(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}
