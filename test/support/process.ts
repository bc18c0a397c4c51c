/**
 * Child processes for the end-to-end tests: output read line by line (ANSI
 * colours stripped), bounded waits on printed lines, and a registry so an
 * `afterEach` can kill whatever a failed test left running.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sweepStaleSecretDirs } from '@vane/client';

/** How a process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A spawned process with its output and exit. */
export interface Proc {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every line printed so far (stdout and stderr), colours stripped. */
  readonly lines: readonly string[];
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /**
   * The first line printed AFTER this call that matches `pattern`. Call it
   * before the action that makes the process print, then await it. Rejects
   * after `timeoutMs`, or when the process exits first.
   */
  nextLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

// eslint-disable-next-line no-control-regex -- ESC starts every ANSI colour sequence
const ANSI = /\x1b\[[0-9;]*m/g;
const live = new Set<Proc>();

/** Spawns `node …args` from `cwd`, with `env` (a full environment). */
export function spawnNode(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; detached?: boolean },
): Proc {
  const spawnOptions: SpawnOptions = {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  };
  const child = spawn(process.execPath, [...args], spawnOptions);
  const lines: string[] = [];
  const waiters = new Set<(line: string) => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (raw) => {
      const line = raw.replace(ANSI, '');
      lines.push(line);
      for (const waiter of [...waiters]) waiter(line);
    });
  }
  const exited = new Promise<Exit>((resolve) =>
    // 'close', not 'exit': by then every line the process printed has been read.
    child.on('close', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    }),
  );
  const proc: Proc = {
    child,
    pid: child.pid!,
    lines,
    exited,
    nextLine(pattern, timeoutMs = 10_000) {
      return new Promise<RegExpExecArray>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(onLine);
        };
        const onLine = (line: string): void => {
          const match = pattern.exec(line);
          if (match) {
            done();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; output:\n${lines.join('\n')}`));
        }, timeoutMs);
        waiters.add(onLine);
        void exited.then((exit) => {
          if (!waiters.has(onLine)) return;
          done();
          reject(
            new Error(
              `the process exited (${exit.signal ?? exit.code}) before printing ${pattern}; output:\n${lines.join('\n')}`,
            ),
          );
        });
      });
    },
  };
  live.add(proc);
  return proc;
}

const groups = new Set<number>();

/**
 * Spawns like {@link spawnNode}, as the leader of a new process group: its
 * own children are in the group too, and {@link killLeftovers} kills them
 * all even after the leader has exited.
 */
export function spawnNodeGroup(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Proc {
  const proc = spawnNode(args, { ...options, detached: true });
  groups.add(proc.pid);
  return proc;
}

/**
 * Stops every process still running, and every group from {@link spawnNodeGroup}: SIGTERM first, so they
 * close what they opened (file secrets included); SIGKILL for what is still there after `graceMs`; then
 * the secrets directories of killed processes are swept, as the next client start would. For `afterEach`.
 */
export async function killLeftovers(graceMs = 5_000): Promise<void> {
  const left = [...live];
  const targets = [...left.map((p) => p.pid), ...[...groups].map((pgid) => -pgid)];
  const signal = (sig: NodeJS.Signals): void => {
    for (const pid of targets) {
      try {
        process.kill(pid, sig);
      } catch {
        // Already gone.
      }
    }
  };
  signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  await Promise.race([Promise.all(left.map((proc) => proc.exited)), graceOver]);
  clearTimeout(timer);
  signal('SIGKILL');
  groups.clear();
  await Promise.all(left.map((proc) => proc.exited));
  await sweepStaleSecretDirs();
}

/**
 * Adds a process group for {@link killLeftovers} to kill: one a spawned
 * process made for a child of its own (`detached`), out of the spawned group.
 */
export function trackGroup(pgid: number): void {
  groups.add(pgid);
}

/** Whether any process of the group `pgid` is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
