import { COMMANDS } from './index.js';
import { runCli } from './run-cli.js';

/** Runs the CLI with `argv`; what it printed and its exit code. */
async function run(argv: string[]): Promise<{ code: number | 'running'; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli('vane-server', argv, { env: {}, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('--help', () => {
  it('vane-server --help lists every command', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Usage: vane-server \[command\] \[options\]/);
    for (const command of COMMANDS) expect(out).toContain(command.usage);
  });

  it.each([
    [['rotate-root-key', '--help'], /^Usage: vane-server rotate-root-key /, /VANE_NEW_ROOT_KEY/],
    [['audit', 'verify', '--help'], /^Usage: vane-server audit verify --state FILE/, /hash chain/],
    [['export', '--help'], /^Usage: vane-server export /, /Exit code 0: written/],
    [['import', '--help'], /^Usage: vane-server import /, /nothing is ever overwritten/],
    [['serve', '--help'], /^Usage: vane-server \[serve\] \[options\]/, /--trust-proxy/],
    [['check-config', '-h'], /^Usage: vane-server check-config \[options\]/, /--store/],
  ])('%j prints that command’s own usage, not the program’s', async (argv, usage, detail) => {
    const { code, out, err } = await run(argv);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(usage);
    expect(out).toMatch(detail);
    expect(out).not.toContain('Commands:');
  });

  it('every command has a help test above', () => {
    expect(COMMANDS.map((c) => c.name).sort()).toEqual(
      ['audit', 'check-config', 'export', 'import', 'rotate-root-key', 'serve'].sort(),
    );
  });
});
