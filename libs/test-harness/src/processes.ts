/**
 * Node processes for tests (an app's `main.js`, the local server's command
 * line): output read line by line, bounded waits on printed lines, and a
 * registry so an `afterEach` can stop whatever a failed test left running.
 *
 * @packageDocumentation
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The default limit of a wait on a process, in milliseconds: starting Node
 * (with a TypeScript loader, say) on a loaded 2-core machine takes seconds.
 * Give the `it` that spawns a longer timeout still (e.g. `60_000`).
 */
export const PROCESS_WAIT_MS = 30_000;

/**
 * The jest timeout to give every `it` (and hook) that starts a process, in
 * milliseconds: `it('…', async () => { … }, PROCESS_TEST_MS)`. Jest's own
 * default (5 s) is not enough on a loaded 2-core machine.
 */
export const PROCESS_TEST_MS = 60_000;

/** How a process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options of {@link NodeProcess.nextLine}. */
export interface LineWaitOptions {
  /** How long to wait for the line, in milliseconds. @default {@link PROCESS_WAIT_MS} */
  timeoutMs?: number;
}

/** A Node process started by {@link spawnNode}. */
export interface NodeProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every line printed so far (stdout and stderr), ANSI colours stripped. */
  readonly lines: readonly string[];
  /** The lines of {@link NodeProcess.lines} that came on stderr. */
  readonly errorLines: readonly string[];
  /** Resolves once the process has exited and all it printed was read. */
  readonly exited: Promise<ProcessExit>;
  /** Everything printed so far, one line after the other. */
  output(): string;
  /**
   * The first line printed AFTER this call that matches `pattern`. Call it
   * before the action that makes the process print, then await it. Rejects
   * after `timeoutMs`, or when the process exits first, with the output so far.
   */
  nextLine(pattern: RegExp, options?: LineWaitOptions): Promise<RegExpExecArray>;
  /**
   * The first line printed so far or later that matches `pattern` (for what a
   * process prints as it starts). Rejects like {@link NodeProcess.nextLine}.
   */
  line(pattern: RegExp, options?: LineWaitOptions): Promise<RegExpExecArray>;
}

/** Options of {@link spawnNode}. */
export interface SpawnNodeOptions {
  /** Working directory. @default the test's `process.cwd()` */
  cwd?: string;
  /** The child's whole environment. @default `process.env` */
  env?: NodeJS.ProcessEnv;
  /**
   * Start it as the leader of a new process group, so {@link stopProcesses}
   * also stops the processes it starts (e.g. `npm start`). @default false
   */
  group?: boolean;
}

// eslint-disable-next-line no-control-regex -- ESC starts every ANSI colour sequence
const ANSI = /\x1b\[[0-9;]*m/g;

/** The processes of this test file still running, and the groups started; what {@link stopProcesses} stops. */
const live = new Set<NodeProcess>();
const groups = new Set<number>();

/** Runs `node …args`, reading its output line by line. */
export function spawnNode(args: readonly string[], options: SpawnNodeOptions = {}): NodeProcess {
  const child = spawn(process.execPath, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  });
  const lines: string[] = [];
  const errorLines: string[] = [];
  const waiters = new Set<(line: string) => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (raw) => {
      const line = raw.replace(ANSI, '');
      lines.push(line);
      if (stream === child.stderr) errorLines.push(line);
      for (const waiter of [...waiters]) waiter(line);
    });
  }
  const exited = new Promise<ProcessExit>((resolve) =>
    // 'close', not 'exit': by then every line the process printed has been read.
    child.on('close', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    }),
  );
  const waitForLine = (pattern: RegExp, options: LineWaitOptions | undefined): Promise<RegExpExecArray> => {
    const timeoutMs = options?.timeoutMs ?? PROCESS_WAIT_MS;
    return new Promise<RegExpExecArray>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(onLine);
      };
      const onLine = (line: string): void => {
        const match = pattern.exec(line);
        if (match === null) return;
        done();
        resolve(match);
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
  };
  const proc: NodeProcess = {
    child,
    pid: child.pid!,
    lines,
    errorLines,
    exited,
    output: () => lines.join('\n'),
    nextLine: (pattern, options) => waitForLine(pattern, options),
    line: (pattern, options) => {
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match !== null) return Promise.resolve(match);
      }
      return waitForLine(pattern, options);
    },
  };
  live.add(proc);
  if (options.group === true) groups.add(proc.pid);
  return proc;
}

/**
 * Stops every process {@link spawnNode} started that still runs, and every
 * group: SIGTERM first, so they close what they opened; SIGKILL for what is
 * still there after `graceMs`. For `afterEach`.
 *
 * @param graceMs - how long SIGTERM is given, in milliseconds.
 * @returns the processes that had to be stopped.
 */
export async function stopProcesses(graceMs = 5_000): Promise<readonly NodeProcess[]> {
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
  return left;
}

/**
 * Adds a process group for {@link stopProcesses} to stop: one a spawned
 * process made for a child of its own (`detached`), outside the spawned group.
 */
export function trackGroup(pgid: number): void {
  groups.add(pgid);
}

/** Whether any process of the group `pgid` (a {@link spawnNode} `group` leader's pid) is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
