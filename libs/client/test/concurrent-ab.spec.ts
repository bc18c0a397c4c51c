import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROCESS_TEST_MS } from '@vane/test-harness';

// A web app evaluates the A/B flags of many requests at once: each evaluation in flight listens for
// close() on the client's one close signal, which must not warn of a listener leak
// (MaxListenersExceededWarning past 10, printed on stderr).
describe('A/B evaluations in flight at once', () => {
  it(
    '200 on one client: every answer, and nothing on stderr',
    () => {
      const root = join(__dirname, '..');
      const child = spawnSync(
        process.execPath,
        ['--import', join(root, '../../scripts/ts-register.mjs'), join(__dirname, 'fixtures/concurrent-ab.ts')],
        { cwd: root, encoding: 'utf8', timeout: 30_000 },
      );
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      expect(child.stdout.trim()).toBe('200');
    },
    PROCESS_TEST_MS,
  );
});
