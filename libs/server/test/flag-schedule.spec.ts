import { ManualClock, startVaneServer, type VaneServer } from '../src/index.js';
import { call, openStream, type StreamReader } from './support/http-client.js';
import { TEST_KEYS, testSeed } from '../src/testing/index.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString().replace('.000Z', 'Z');

describe('flag schedules (starts_at / ends_at)', () => {
  let clock: ManualClock;
  let server: VaneServer;
  let reader: StreamReader | undefined;

  beforeEach(async () => {
    clock = new ManualClock(T0);
    server = await startVaneServer({ seed: testSeed(), clock });
  });
  afterEach(async () => {
    reader?.close();
    await server.close();
  });

  const flagOf = async (key: string) => {
    const body = (await call(server, { path: '/v1/sync', slug: 'shop', key: TEST_KEYS.shopSecret })).json<{
      revision: number;
      flags: Record<string, { is_active: boolean }>;
    }>();
    return { revision: body.revision, active: body.flags[key]?.is_active };
  };

  it('computes is_active from is_enabled, starts_at and ends_at', async () => {
    server.admin.setFlag('shop', 'past', { is_enabled: true, starts_at: at(-1000), ends_at: at(1000) });
    server.admin.setFlag('shop', 'future', { is_enabled: true, starts_at: at(1000) });
    server.admin.setFlag('shop', 'ended', { is_enabled: true, ends_at: at(0) }); // ends_at is exclusive
    server.admin.setFlag('shop', 'disabled', { is_enabled: false, starts_at: at(-1000) });
    expect((await flagOf('past')).active).toBe(true);
    expect((await flagOf('future')).active).toBe(false);
    expect((await flagOf('ended')).active).toBe(false);
    expect((await flagOf('disabled')).active).toBe(false);
  });

  it('turns a flag on at starts_at and off at ends_at, each with a new revision and a patch at that moment', async () => {
    const revision = server.admin.setFlag('shop', 'launch', {
      is_enabled: true,
      starts_at: at(60_000),
      ends_at: at(120_000),
    });
    reader = await openStream(server, { slug: 'shop', key: TEST_KEYS.shopSecret });
    await reader.event(1);
    expect(await flagOf('launch')).toEqual({ revision, active: false });

    clock.advance(59_999);
    expect(await flagOf('launch')).toEqual({ revision, active: false });
    clock.advance(1);
    const on = JSON.parse((await reader.event(2)).data);
    expect(on).toEqual({
      base: revision,
      revision: revision + 1,
      flags: { launch: { is_enabled: true, starts_at: at(60_000), ends_at: at(120_000), is_active: true } },
      // Committed when the boundary passed, on the server's clock.
      committed_at: new Date(T0 + 60_000).toISOString(),
    });
    expect(await flagOf('launch')).toEqual({ revision: revision + 1, active: true });

    clock.advance(60_000);
    const off = JSON.parse((await reader.event(3)).data);
    expect(off).toMatchObject({ base: revision + 1, revision: revision + 2, flags: { launch: { is_active: false } } });
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps one timer, for the nearest boundary, and re-arms after each', async () => {
    server.admin.setFlag('shop', 'a', { is_enabled: true, starts_at: at(30_000) });
    server.admin.setFlag('shop', 'b', { is_enabled: true, starts_at: at(10_000) });
    expect(clock.pendingTimers).toBe(1);
    const before = server.revision('shop');
    clock.advance(10_000);
    expect(server.revision('shop')).toBe(before + 1);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(20_000);
    expect(server.revision('shop')).toBe(before + 2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('turns several flags sharing a boundary in one revision', async () => {
    server.admin.setFlag('shop', 'a', { is_enabled: true, starts_at: at(5000) });
    server.admin.setFlag('shop', 'b', { is_enabled: true, starts_at: at(5000) });
    const before = server.revision('shop');
    clock.advance(5000);
    expect(server.revision('shop')).toBe(before + 1);
  });

  it('drops the timer when the scheduled flag is deleted, and arms none when nothing is scheduled', async () => {
    server.admin.setFlag('shop', 'a', { is_enabled: true, starts_at: at(5000) });
    expect(clock.pendingTimers).toBe(1);
    server.admin.deleteFlag('shop', 'a');
    expect(clock.pendingTimers).toBe(0);
  });

  it('arms boundaries found in the seed at start', async () => {
    await server.close();
    const seed = testSeed();
    seed.services!['shop']!.flags!['seeded'] = { is_enabled: true, starts_at: at(1000), ends_at: null };
    server = await startVaneServer({ seed, clock });
    const before = server.revision('shop');
    clock.advance(1000);
    expect(server.revision('shop')).toBe(before + 1);
    expect((await flagOf('seeded')).active).toBe(true);
  });
});
