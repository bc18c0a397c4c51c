import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_TEST_MS } from '@vane/test-harness';
import { describeWithPostgres } from '../../../test/support/postgres.js';
import { usePostgresAndTempDir } from './support/postgres-and-temp-dir.js';
import { rotateUnderWrites } from './support/rotate-under-writes.js';
import { expectRotatedFleet, rotateFleetUnderWrites } from './support/rotate-fleet-under-writes.js';

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

describeWithPostgres('root-key rotation under load (a fleet on PostgreSQL)', () => {
  const setup = usePostgresAndTempDir('vane-fleet-rotation-');

  it(
    'rotates on one replica among 1,000 secret writes to three: no restart, every secret readable on every replica',
    async () => {
      const result = await rotateFleetUnderWrites(await setup.pg.createDatabase('rotation_1000'), setup.dir, 1000);
      expectRotatedFleet(result);
    },
    PROCESS_TEST_MS,
  );
});
