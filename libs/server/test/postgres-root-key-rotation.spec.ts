import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithPostgres, startPostgres, type TestPostgres } from '../../../test/support/postgres.js';
import { expectRotatedFleet, rotateFleetUnderWrites } from './support/rotate-fleet-under-writes.js';

// Four replicas and a database on a loaded two-core machine; the 1,000-write run is root-key-rotation.slow-spec.ts.
jest.setTimeout(60_000);

describeWithPostgres('root-key rotation on a fleet, online', () => {
  let pg: TestPostgres;
  let dir: string;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-fleet-rotation-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('one replica rotates among writes to three; every replica follows without a restart, nothing needs the old key', async () => {
    expectRotatedFleet(await rotateFleetUnderWrites(await pg.createDatabase('rotation'), dir, 120));
  });
});
