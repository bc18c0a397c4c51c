import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_TEST_MS } from '@vane/test-harness';
import { rotateUnderWrites } from './support/rotate-under-writes.js';

describe('root-key rotation under load (file store)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-rotation-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'rotates among 1,000 concurrent secret writes: all answered, every secret readable with the new key alone',
    async () => {
      const result = await rotateUnderWrites(dir, 1000);
      expect(result.refused).toEqual([]);
      expect(result.unreadable).toEqual([]);
      expect(result.rotations).toBe(1);
    },
    PROCESS_TEST_MS,
  );
});
