import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROCESS_TEST_MS } from '@vane/test-harness';

describe('file secrets at process exit', () => {
  it(
    'are removed, best effort, when the process exits without close()',
    () => {
      const root = join(__dirname, '..');
      const child = spawnSync(
        process.execPath,
        ['--import', join(root, '../../scripts/ts-register.mjs'), join(__dirname, 'fixtures/exit-without-close.ts')],
        {
          cwd: root,
          encoding: 'utf8',
          timeout: 30_000,
        },
      );
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      const path = child.stdout.trim();
      expect(path).toMatch(/vane-secrets-/);
      expect(existsSync(path)).toBe(false);
      expect(existsSync(dirname(path))).toBe(false);
    },
    PROCESS_TEST_MS,
  );
});
