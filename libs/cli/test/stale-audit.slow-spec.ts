import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock, startVaneServer, type VaneServer } from '@vane/server';
import { adminRequest } from '@vane/server/testing';
import { runRefs } from '../src/refs/refs-command.js';
import { writeFlagReads } from './support/flag-reads.js';

// The stale list from the server's own audit (GET /admin/v1/audit, PROTOCOL §10), the server and the
// command on one manual clock: flags changed through the admin API on chosen days, read back through
// `vane refs --admin-url`.
// A scan or a compile builds a TypeScript program: seconds each, many more on a loaded machine.
jest.setTimeout(120_000);

const DAY_MS = 86_400_000;
const KEY = 'svs_shop_stale_audit_test';
const FLAG = { starts_at: null, ends_at: null };

let server: VaneServer;
let clock: ManualClock;
let dir: string;

beforeAll(async () => {
  clock = new ManualClock(Date.parse('2026-08-01T09:00:00Z'));
  server = await startVaneServer({
    port: 0,
    clock,
    seed: {
      services: {
        shop: {
          keys: [KEY],
          flags: {
            'new-checkout': { is_enabled: false, ...FLAG },
            beta: { is_enabled: true, ...FLAG },
            'dark-mode': { is_enabled: false, ...FLAG },
          },
        },
      },
    },
  });
  dir = mkdtempSync(join(__dirname, '.scratch-'));
  writeFlagReads(dir, ['new-checkout', 'beta', 'dark-mode']);
  const put = (key: string, body: object) => adminRequest(server, 'PUT', `/services/shop/flags/${key}`, body);
  await put('beta', { is_enabled: false, ...FLAG }); // day 0: off for good
  clock.advance(20 * DAY_MS);
  await put('new-checkout', { is_enabled: true, ...FLAG }); // day 20: on for everyone
  clock.advance(10 * DAY_MS);
  // Day 30: on for half the users: never steady, however old (the snapshot does not show the rule; the audit does).
  await put('dark-mode', { is_enabled: true, ...FLAG, ab: { percentage: 50, salt: 'dm', cohorts: [] } });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function staleOn(day: number): Promise<string[]> {
  const { report } = await runRefs(
    { dir, baseUrl: server.baseUrl('shop'), adminUrl: server.url, staleAfter: '30d', json: true },
    {
      cwd: dir,
      env: { VANE_API_KEY: KEY, VANE_ADMIN_TOKEN: server.adminToken },
      print: () => undefined,
      warn: () => undefined,
      now: () => Date.parse('2026-08-01T09:00:00Z') + day * DAY_MS,
    },
  );
  return report.staleFlags!.map((f) => `${f.key} ${f.state} since ${f.lastChangedAt.slice(0, 10)}`);
}

it('lists the flags steady for longer than 30 days by the audit, as the days go by', async () => {
  expect(await staleOn(31)).toEqual(['beta off since 2026-08-01']);
  expect(await staleOn(51)).toEqual(['beta off since 2026-08-01', 'new-checkout on since 2026-08-21']);
  expect(await staleOn(400)).toEqual(['beta off since 2026-08-01', 'new-checkout on since 2026-08-21']);
});

it('a change makes a flag fresh again', async () => {
  clock.set(Date.parse('2026-08-01T09:00:00Z') + 50 * DAY_MS);
  await adminRequest(server, 'PUT', '/services/shop/flags/beta', { is_enabled: true, ...FLAG });
  await adminRequest(server, 'PUT', '/services/shop/flags/beta', { is_enabled: false, ...FLAG });
  expect(await staleOn(51)).toEqual(['new-checkout on since 2026-08-21']);
});
