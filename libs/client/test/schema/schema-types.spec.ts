import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// Reads typed by a registered schema: tsc over a file of `@ts-expect-error` cases (an unused one is an error too).
it('types reads from the registered schema', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const project = join(__dirname, 'types', 'tsconfig.json');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    output = String((err as { stdout?: string }).stdout ?? err);
  }
  expect(output).toBe('');
}, 60_000);
