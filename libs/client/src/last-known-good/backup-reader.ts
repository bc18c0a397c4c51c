/**
 * Reading a last-known-good backup back: fetch it from its store within a
 * bounded time, verify it, and check its age.
 *
 * @packageDocumentation
 */
import { redactText } from '../util/redact.js';
import type { Clock, Timers } from '../util/timers.js';
import { decodeBackup, type BackupContents, type BackupIdentity } from './backup-document.js';
import type { LastKnownGoodStore } from './last-known-good-store.js';
import { UnusableBackupError } from './unusable-backup-error.js';

/** What {@link readBackup} needs. */
export interface BackupReadContext {
  readonly store: LastKnownGoodStore;
  readonly identity: BackupIdentity;
  /** A backup saved longer ago than this is not served (`undefined`: no limit). */
  readonly maxAgeMs: number | undefined;
  /** How long the store may take to answer, in milliseconds. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly timers: Timers;
}

/** A backup that can be served, and how old it is. */
export interface UsableBackup extends BackupContents {
  /** Milliseconds between the save and now (0 when the writer's clock was ahead). */
  readonly ageMs: number;
}

function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return redactText(text).slice(0, 300);
}

async function readWithin(ctx: BackupReadContext): Promise<string | null> {
  let timer: unknown;
  const timeout = new Promise<never>((_, reject) => {
    timer = ctx.timers.setTimeout(
      () => reject(new UnusableBackupError(`the store did not answer within ${ctx.timeoutMs} ms`)),
      ctx.timeoutMs,
    );
  });
  try {
    return await Promise.race([ctx.store.read(ctx.identity.serviceId), timeout]);
  } catch (err) {
    if (err instanceof UnusableBackupError) throw err;
    throw new UnusableBackupError(`the store cannot be read (${describeFailure(err)})`);
  } finally {
    ctx.timers.clearTimeout(timer);
  }
}

/**
 * Reads, verifies and age-checks the backup of the service.
 *
 * @returns the backup, or `null` when the store holds none.
 * @throws UnusableBackupError - when the store fails or times out, or the backup is bad or too old.
 */
export async function readBackup(ctx: BackupReadContext): Promise<UsableBackup | null> {
  const text = await readWithin(ctx);
  if (text === null) return null;
  if (typeof text !== 'string') throw new UnusableBackupError(`the store answered a ${typeof text}, not text`);
  const contents = decodeBackup(text, ctx.identity);
  const ageMs = Math.max(0, ctx.clock.now() - contents.savedAtMs);
  if (ctx.maxAgeMs !== undefined && ageMs > ctx.maxAgeMs) {
    throw new UnusableBackupError(
      `expired: revision ${contents.snapshot.revision} was saved ${ageMs} ms ago, more than maxAgeMs (${ctx.maxAgeMs} ms)`,
    );
  }
  return { ...contents, ageMs };
}
