/**
 * Who owns a secrets directory, told by its name alone:
 * `vane-secrets-<pid>-<start>-<boot>-<place>-XXXXXX`, where `start` is the
 * owner's start time (clock ticks since boot, from `/proc/<pid>/stat`),
 * `boot` a short form of the kernel's boot id, and `place` a hash of the
 * host name and the pid namespace. A later process can then tell a dead
 * owner from a live one, even once the pid was reused, without reading
 * anything inside the directory.
 *
 * Without `/proc` (macOS, Windows) `start` and `boot` are `0`: an owner is
 * then gone only when no process has its pid, and a reused pid keeps its
 * directory (a leftover, never a live directory removed).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** The name every secrets directory starts with. */
export const SECRET_DIR_PREFIX = 'vane-secrets-';

const NAME = /^vane-secrets-(\d+)-(\d+)-([0-9a-f]{8}|0)-([0-9a-f]{8})-[A-Za-z0-9]{6}$/;

/** The owner recorded in a directory name. */
export interface SecretDirOwner {
  readonly pid: number;
  /** Start time in clock ticks since boot; `'0'` when unknown. */
  readonly start: string;
  /** First 8 hex digits of the boot id; `'0'` when unknown. */
  readonly boot: string;
  /** Host name and pid namespace, hashed to 8 hex digits. */
  readonly place: string;
}

/** What a sweep may do with a directory. */
export type OwnerState = 'alive' | 'gone' | 'unknown';

function readOr(read: () => string, fallback: string): string {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** Start time of `pid` in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or undefined. */
export function processStartTicks(pid: number | 'self'): string | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
  // Field 2 (the command) is in parentheses and may itself hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

let self: SecretDirOwner | undefined;

/** This process as an owner (computed once). */
export function currentOwner(): SecretDirOwner {
  if (self) return self;
  const bootId = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), '');
  const pidNamespace = readOr(() => readlinkSync('/proc/self/ns/pid'), '');
  self = {
    pid: process.pid,
    start: processStartTicks('self') ?? '0',
    boot: /^[0-9a-f]{8}/.test(bootId) ? bootId.slice(0, 8) : '0',
    place: createHash('sha256').update(`${hostname()}\0${pidNamespace}`).digest('hex').slice(0, 8),
  };
  return self;
}

/** The `mkdtemp` prefix of this process's directories. */
export function secretDirPrefix(owner: SecretDirOwner = currentOwner()): string {
  return `${SECRET_DIR_PREFIX}${owner.pid}-${owner.start}-${owner.boot}-${owner.place}-`;
}

/** The owner a directory name records, or undefined for a name not ours (or of an older, unmarked layout). */
export function parseSecretDirName(name: string): SecretDirOwner | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  return { pid: Number(match[1]), start: match[2]!, boot: match[3]!, place: match[4]! };
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has this pid; it exists.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Whether the owner is still running. `unknown` for a directory made on
 * another host or in another pid namespace (a shared volume): its pids say
 * nothing here, so a sweep leaves it alone.
 */
export function ownerState(owner: SecretDirOwner, me: SecretDirOwner = currentOwner()): OwnerState {
  if (owner.place !== me.place) return 'unknown';
  // Same host and namespace, another boot: every process of that boot is gone.
  if (owner.boot !== me.boot) return 'gone';
  if (owner.pid === me.pid && owner.start === me.start) return 'alive';
  if (!pidExists(owner.pid)) return 'gone';
  if (me.start === '0') return 'alive';
  const start = processStartTicks(owner.pid);
  if (start === undefined) return pidExists(owner.pid) ? 'unknown' : 'gone';
  // The pid was reused by a process started at another time.
  return start === owner.start ? 'alive' : 'gone';
}
