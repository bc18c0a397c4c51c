import { runCli } from '@vane/cli/api';

/** What one `vane` run printed and its exit status. */
export interface VaneRun {
  readonly code: number;
  readonly stdout: string[];
  readonly stderr: string[];
}

/** Runs the `vane` command line in process, in `cwd`, with `env` as its whole environment. */
export async function runVane(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<VaneRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    cwd,
    env,
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  });
  return { code, stdout, stderr };
}
