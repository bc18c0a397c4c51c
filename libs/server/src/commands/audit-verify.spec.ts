import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { startLocalServer } from '../local-server.js';
import { testSeed } from '../testing/index.js';
import { auditVerify } from './audit-verify.js';

describe('vane-server audit verify', () => {
  let dir: string;
  let statePath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-audit-verify-'));
    statePath = join(dir, 'state.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function verify(): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await auditVerify(
      ['--state', statePath],
      (l) => out.push(l),
      (l) => err.push(l),
    );
    return { code, out, err };
  }

  it('reports an intact chain across the state file and its journal', async () => {
    const server = await startLocalServer({ seed: testSeed(), statePath });
    server.admin.setConfig('shop', 'a', 1);
    server.admin.setConfig('shop', 'a', 2);
    await server.close();
    expect(await verify()).toEqual({ code: 0, out: ['audit intact: 2 entries, chain verified'], err: [] });
  });

  it('names an entry edited in a journal line whose checksum was made to match', async () => {
    const server = await startLocalServer({ seed: testSeed(), statePath });
    server.admin.setConfig('shop', 'a', 1);
    server.admin.setConfig('shop', 'a', 2);
    server.admin.setConfig('shop', 'a', 3);
    // Every answer waits for the journal: an admin read is answered once the three are on disk.
    await fetch(`${server.url}/admin/v1/audit?limit=1`, { headers: { authorization: `Bearer ${server.adminToken}` } });
    const captured = readFileSync(`${statePath}.journal`);
    const state = readFileSync(statePath);
    await server.close();
    // As if the process had been killed: the state file from before, the journal holding the three changes.
    writeFileSync(statePath, state);
    const lines = captured.toString('utf8').trimEnd().split('\n');
    const record = JSON.parse(lines[1]!.slice(9)) as { audit: { new: unknown } };
    record.audit.new = 99;
    const json = Buffer.from(JSON.stringify(record), 'utf8');
    lines[1] = `${crc32(json).toString(16).padStart(8, '0')} ${json.toString('utf8')}`;
    writeFileSync(`${statePath}.journal`, `${lines.join('\n')}\n`);
    const result = await verify();
    expect(result.code).toBe(1);
    expect(result.err).toEqual([expect.stringMatching(/^audit broken at entry 2 \(position 2 of 3\): edited/)]);
  });

  it('answers 2 with its usage without --state, --store or VANE_STORE', async () => {
    const err: string[] = [];
    expect(
      await auditVerify(
        [],
        () => undefined,
        (l) => err.push(l),
        {},
      ),
    ).toBe(2);
    expect(err[0]).toMatch(/^--state FILE or --store STORE \(or VANE_STORE\) is required/);
  });

  it('reads a file store named by VANE_STORE, and refuses a memory store', async () => {
    const server = await startLocalServer({ seed: testSeed(), statePath });
    server.admin.setConfig('shop', 'a', 1);
    await server.close();
    const out: string[] = [];
    const err: string[] = [];
    const run = (env: NodeJS.ProcessEnv) =>
      auditVerify(
        [],
        (l) => out.push(l),
        (l) => err.push(l),
        env,
      );
    expect(await run({ VANE_STORE: `file:${statePath}` })).toBe(0);
    expect(out).toEqual(['audit intact: 1 entries, chain verified']);
    expect(await run({ VANE_STORE: 'memory' })).toBe(2);
    expect(err[0]).toMatch(/^a memory store keeps nothing to verify/);
  });
});
