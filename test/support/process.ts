/**
 * Child processes for the end-to-end tests, from `@vane/server/testing`
 * (output line by line, bounded waits on printed lines, a registry of what
 * runs), plus the one step that needs the client: after stopping leftovers,
 * the secrets directories of killed processes are swept, as a next start would.
 */
import { sweepStaleSecretDirs } from '@vane/client';
import { spawnNode as spawn, stopProcesses, type NodeProcess, type ProcessExit } from '@vane/test-harness';

export { groupAlive, trackGroup } from '@vane/test-harness';

/** How a process ended. */
export type Exit = ProcessExit;
/** A spawned process with its output and exit. */
export type Proc = NodeProcess;

/** Spawns `node …args` from `cwd`, with `env` (a full environment). */
export function spawnNode(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Proc {
  return spawn(args, options);
}

/**
 * Spawns like {@link spawnNode}, as the leader of a new process group: its
 * own children are in the group too, and {@link killLeftovers} kills them
 * all even after the leader has exited.
 */
export function spawnNodeGroup(args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Proc {
  return spawn(args, { ...options, group: true });
}

/**
 * Stops every process still running and every group (SIGTERM, then SIGKILL
 * after `graceMs`), then sweeps the secrets directories killed processes
 * left. For `afterEach`.
 */
export async function killLeftovers(graceMs = 5_000): Promise<void> {
  await stopProcesses(graceMs);
  await sweepStaleSecretDirs();
}
