import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { startVaneServer } from '../server/start-vane-server.js';
import { testSeed } from '../testing/index.js';
import { auditVerify } from './audit-verify.js';
import { auditChainKey, chainAuditEntry } from '../domain/audit-chain.js';
import type { AuditRecord } from '../domain/model.js';
import { Keyring } from '../sealing/keyring.js';
import { besideKeyFile } from '../sealing/root-key-source.js';

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
    const server = await startVaneServer({ seed: testSeed(), statePath });
    server.admin.setConfig('shop', 'a', 1);
    server.admin.setConfig('shop', 'a', 2);
    await server.close();
    expect(await verify()).toEqual({ code: 0, out: ['audit intact: 2 entries, chain verified, keyed'], err: [] });
  });

  it('names an entry edited in a journal line whose checksum was made to match', async () => {
    const server = await startVaneServer({ seed: testSeed(), statePath });
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
    const server = await startVaneServer({ seed: testSeed(), statePath });
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
    expect(out).toEqual(['audit intact: 1 entries, chain verified, keyed']);
    expect(await run({ VANE_STORE: 'memory' })).toBe(2);
    expect(err[0]).toMatch(/^a memory store keeps nothing to verify/);
  });

  /** Three changes through the admin API, the head an auditor kept, and the closed store's files. */
  async function keptHeadAfterThreeChanges(): Promise<string> {
    const server = await startVaneServer({ seed: testSeed(), statePath });
    for (const value of [1, 2, 3]) server.admin.setConfig('shop', 'a', value);
    const answer = await fetch(`${server.url}/admin/v1/audit/head`, {
      headers: { authorization: `Bearer ${server.adminToken}` },
    });
    const { hash: head } = (await answer.json()) as { hash: string };
    await server.close();
    expect(existsSync(`${statePath}.journal`) ? readFileSync(`${statePath}.journal`, 'utf8').trim() : '').toBe('');
    return head;
  }

  /** The state file's audit, changed by `edit` as whoever can write the store would. */
  function rewriteAudit(edit: (audit: AuditRecord[]) => AuditRecord[]): void {
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as { audit: AuditRecord[] };
    state.audit = edit(state.audit);
    writeFileSync(statePath, JSON.stringify(state));
  }

  const run = async (args: string[]): Promise<{ code: number; out: string[]; err: string[] }> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await auditVerify(
      args,
      (l) => out.push(l),
      (l) => err.push(l),
      {},
    );
    return { code, out, err };
  };

  it('holds against a kept head, and reports a cut tail that the chain alone cannot show', async () => {
    const head = await keptHeadAfterThreeChanges();
    expect(head).toMatch(/^[0-9a-f]{64}$/);
    expect(await run(['--state', statePath, '--expect-head', head])).toEqual({
      code: 0,
      out: ['audit intact: 3 entries, chain verified, keyed, the kept head holds (0 entries since)'],
      err: [],
    });
    rewriteAudit((audit) => audit.slice(0, 2));
    expect((await run(['--state', statePath])).code).toBe(0);
    expect(await run(['--state', statePath, '--expect-head', head])).toEqual({
      code: 1,
      out: [],
      err: [
        `audit broken against the kept head: the kept head ${head.slice(0, 12)}… is not in the chain (2 entries): ` +
          'its tail was cut, or it was rewritten from before the head (a forged append)',
      ],
    });
  });

  it('reports a forged append against a kept head, even one keyed with the root key', async () => {
    const head = await keptHeadAfterThreeChanges();
    const rootKey = Keyring.parse(readFileSync(besideKeyFile(statePath), 'utf8'), 'key file').primary;
    rewriteAudit((audit) => [
      ...audit.slice(0, 2),
      chainAuditEntry(audit[1], { ...audit[2]!, actor: 'someone-else' }, auditChainKey(rootKey)),
    ]);
    expect((await run(['--state', statePath])).code).toBe(0);
    const result = await run(['--state', statePath, '--expect-head', head]);
    expect(result.code).toBe(1);
    expect(result.err).toEqual([
      expect.stringMatching(
        /^audit broken against the kept head: .* is not in the chain \(3 entries\).*forged append\)$/,
      ),
    ]);
  });

  it('refuses an entry re-hashed without the root key, and verifies an older unkeyed chain without one', async () => {
    await keptHeadAfterThreeChanges();
    // Whoever can write the store but lacks the root key can only re-hash with SHA-256, as an unkeyed chain.
    rewriteAudit((audit) => [
      ...audit.slice(0, 2),
      { ...chainAuditEntry(audit[1], { ...audit[2]!, actor: 'someone-else' }), keyed_by: audit[2]!.keyed_by! },
    ]);
    expect((await run(['--state', statePath])).err).toEqual([
      expect.stringMatching(/^audit broken at entry 3 \(position 3 of 3\): edited/),
    ]);
    // A chain written before the keying: plain SHA-256 entries, verified with no key at all.
    const legacy = join(dir, 'legacy.json');
    const entries: AuditRecord[] = [];
    for (const n of [1, 2]) {
      entries.push(
        chainAuditEntry(entries.at(-1), {
          at: `2026-11-0${n}T10:00:00.000Z`,
          actor: 'admin',
          action: 'config.set',
          service: 'shop',
          key: 'a',
          revision: n + 1,
        }),
      );
    }
    writeFileSync(legacy, JSON.stringify({ services: {}, audit: entries }));
    expect(await run(['--state', legacy])).toEqual({
      code: 0,
      out: ['audit intact: 2 entries, chain verified'],
      err: [],
    });
  });

  it('asks for the root key of a keyed chain it cannot check, and for a head it can read', async () => {
    await keptHeadAfterThreeChanges();
    rmSync(besideKeyFile(statePath));
    const result = await run(['--state', statePath]);
    expect(result.code).toBe(2);
    expect(result.err[0]).toMatch(
      /^vane-server audit verify: the chain is keyed by audit key\(s\) ak_[0-9a-f]{16}, derived/,
    );
    expect((await run(['--state', statePath, '--expect-head', '3:abc'])).code).toBe(2);
  });
});
