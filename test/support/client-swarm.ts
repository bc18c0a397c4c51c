/**
 * Real `VaneClient`s spread over child processes (`client-swarm.child.mjs`),
 * for loads one test process cannot hold: each child creates its share in
 * batches, reads every client's values all along, and reports what its
 * clients saw.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { withTimeout } from '@vane/server/testing';
import { ROOT, baseEnv } from './samples.js';

/** What the clients of a swarm saw, summed over its processes. */
export interface SwarmReport {
  readonly clients: number;
  /** Clients whose status says connected now. */
  readonly connected: number;
  /** Clients in the polling fallback now. */
  readonly polling: number;
  /** How many clients hold each revision. */
  readonly revisions: Readonly<Record<string, number>>;
  /** Lines the clients logged at `error` (first twenty a process): errors raised to the app. */
  readonly errors: readonly string[];
  /** Lines logged at `warn` (transport retries), and the first few. */
  readonly warnings: number;
  readonly warningSamples: readonly string[];
  /** Reads of a value that threw. */
  readonly readErrors: number;
  /** Status changes to disconnected. */
  readonly disconnects: number;
  /** Status changes into the polling fallback. */
  readonly pollingSeen: number;
}

type ChildMessage =
  ({ type: 'report' } & SwarmReport) | { type: 'ready' } | { type: 'closed' } | { type: 'failed'; message: string };

const CHILD = join(ROOT, 'test/support/client-swarm.child.mjs');

/** Clients in child processes; {@link ClientSwarm.close} (or `kill`) ends them. */
export class ClientSwarm {
  private constructor(private readonly children: readonly ChildProcess[]) {}

  /**
   * Starts `count` clients of `baseUrl` over `processes` children (their
   * creation runs in parallel, `batch` at a time in each); resolves once
   * every client is created, within `timeoutMs`.
   */
  static async start(options: {
    readonly baseUrl: string;
    readonly apiKey: string;
    readonly count: number;
    readonly processes: number;
    readonly batch: number;
    readonly timeoutMs: number;
  }): Promise<ClientSwarm> {
    const children: ChildProcess[] = [];
    const share = Math.ceil(options.count / options.processes);
    for (let i = 0; i < options.processes; i++) {
      const count = Math.min(share, options.count - i * share);
      const config = JSON.stringify({ baseUrl: options.baseUrl, apiKey: options.apiKey, count, batch: options.batch });
      children.push(
        fork(CHILD, [config], { cwd: ROOT, env: baseEnv(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
      );
    }
    const swarm = new ClientSwarm(children);
    try {
      await withTimeout(
        Promise.all(children.map((child) => nextMessage(child, 'ready'))),
        `${options.count} clients created`,
        { timeoutMs: options.timeoutMs },
      );
    } catch (error) {
      swarm.kill();
      throw error;
    }
    return swarm;
  }

  /** What every client saw so far, summed. */
  async report(): Promise<SwarmReport> {
    const reports = await Promise.all(
      this.children.map(async (child) => {
        const answer = nextMessage(child, 'report');
        child.send({ type: 'report' });
        return (await withTimeout(answer, 'a swarm report', { timeoutMs: 30_000 })) as SwarmReport;
      }),
    );
    const revisions: Record<string, number> = {};
    for (const r of reports)
      for (const [rev, n] of Object.entries(r.revisions)) revisions[rev] = (revisions[rev] ?? 0) + n;
    const sum = (pick: (r: SwarmReport) => number): number => reports.reduce((total, r) => total + pick(r), 0);
    return {
      clients: sum((r) => r.clients),
      connected: sum((r) => r.connected),
      polling: sum((r) => r.polling),
      revisions,
      errors: reports.flatMap((r) => r.errors),
      warnings: sum((r) => r.warnings),
      warningSamples: reports.flatMap((r) => r.warningSamples).slice(0, 5),
      readErrors: sum((r) => r.readErrors),
      disconnects: sum((r) => r.disconnects),
      pollingSeen: sum((r) => r.pollingSeen),
    };
  }

  /** Closes every client and waits for the processes to exit (bounded). */
  async close(): Promise<void> {
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.send({ type: 'close' });
        await withTimeout(exited, 'a swarm process to exit', { timeoutMs: 30_000 }).catch(() => child.kill('SIGKILL'));
      }),
    );
  }

  /** Ends the processes at once. */
  kill(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** The next message of `type` from `child`; rejects when it fails or exits first. */
function nextMessage(child: ChildProcess, type: ChildMessage['type']): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage): void => {
      if (message.type === 'failed') done(() => reject(new Error(`a swarm process failed: ${message.message}`)));
      else if (message.type === type) done(() => resolve(message));
    };
    const onExit = (code: number | null): void =>
      done(() => reject(new Error(`a swarm process exited (${code}) before its ${type}`)));
    const done = (settle: () => void): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle();
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
