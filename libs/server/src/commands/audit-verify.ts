/**
 * `vane-server audit verify`: checks the audit's hash chain in a state file
 * and its journals, or in a PostgreSQL store (its oldest kept snapshot and
 * every change after it), and names the first entry edited, removed or
 * reordered; with `--expect-head`, also a tail cut or a chain rewritten
 * after a head kept outside. A keyed chain takes the root key (its HMACs
 * are made with a key derived from it); an older, unkeyed chain none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditKeyLookup, checkAuditHead, isAuditHash, verifyAuditChain } from '../domain/audit-chain.js';
import type { Keyring } from '../sealing/keyring.js';
import { besideKeyFile, resolveKeyring } from '../sealing/root-key-source.js';
import { describeStoreSetting, parseStoreSetting, storeHasPassword } from '../server/store-setting.js';
import type { AuditRecord } from '../domain/model.js';
import { readJournalFile } from '../persistence/journal-file.js';
import { journalPathOf } from '../persistence/state-journal.js';

/** What `audit verify --help` prints. */
export const AUDIT_VERIFY_USAGE = `Usage: vane-server audit verify --state FILE [--expect-head HASH] [--root-key-file FILE]
       vane-server audit verify --store STORE [--expect-head HASH] [--root-key-file FILE]
         (STORE: file:PATH or postgres://…; default VANE_STORE)

  Checks the hash chain of the audit in the state file FILE and its journal
  (FILE.journal), or in a PostgreSQL store, and reports the first entry
  edited, removed or reordered. --expect-head takes a head kept outside the
  store (the hash of GET /admin/v1/audit/head) and reports a tail cut after
  it, or a chain rewritten from before it. A keyed chain (a sealed store's) is
  checked with its root keys: VANE_ROOT_KEY, --root-key-file, or the key
  file beside a state file; an entry keyed before a root-key rotation takes
  the retired root key (keep it where verification runs).
  A postgres:// URL with a password goes in VANE_STORE (or the password in
  PGPASSWORD), never on the command line.
  Exit code 0: the chain holds; 1: it is broken (the line names the entry); 2: usage, or a key is missing.`;

/** The audit of a state file and its journals, oldest first, as a replay would see it. */
export function readStoredAudit(statePath: string): AuditRecord[] {
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as { audit?: AuditRecord[] };
  const entries = [...(state.audit ?? [])];
  for (const path of [`${journalPathOf(statePath)}.old`, journalPathOf(statePath)]) {
    for (const change of readJournalFile(path)?.changes ?? []) appendAuditOf(entries, change.audit);
  }
  return entries;
}

/** The audit of a PostgreSQL store, oldest first: its oldest kept snapshot's, then each later change's entry. */
export async function readPostgresAudit(url: string): Promise<AuditRecord[]> {
  const { connectPostgres } = await import('../postgres/postgres-driver.js');
  const sql = await connectPostgres(url, { max: 1, connectTimeoutSeconds: 10 });
  try {
    const [base] = await sql<
      { seq: number; data: string }[]
    >`SELECT seq, data FROM vane_snapshots ORDER BY seq LIMIT 1`;
    if (base === undefined) return [];
    const entries = [...((JSON.parse(base.data) as { audit?: AuditRecord[] }).audit ?? [])];
    const rows = await sql<{ record: string }[]>`SELECT record FROM vane_changes WHERE seq > ${base.seq} ORDER BY seq`;
    for (const row of rows) appendAuditOf(entries, (JSON.parse(row.record) as { audit?: AuditRecord }).audit);
    return entries;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Appends a change's audit entry, unless the entries already hold it (a record folded into a snapshot). */
function appendAuditOf(entries: AuditRecord[], entry: Partial<AuditRecord> | undefined): void {
  if (entry?.seq === undefined) return;
  const last = entries[entries.length - 1];
  if (last === undefined || entry.seq > last.seq) entries.push(entry as AuditRecord);
  else if (entries[entry.seq - 1]?.hash !== entry.hash) entries.push(entry as AuditRecord);
}

/** What `audit verify` was asked: where to read the chain, the head it must hold, the root keys it was keyed with. */
interface VerifyRequest {
  readonly read: { readonly what: string; entries(): Promise<AuditRecord[]> };
  readonly head: string | undefined;
  readonly keyring: Keyring | undefined;
}

/** Reads `audit verify`'s arguments; throws an Error saying what is wrong with them. */
function verifyRequest(argv: string[], env: NodeJS.ProcessEnv): VerifyRequest | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      state: { type: 'string' },
      store: { type: 'string' },
      'expect-head': { type: 'string' },
      'root-key-file': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  if (values.store !== undefined && storeHasPassword(values.store)) {
    throw new Error('--store holds a password: set VANE_STORE instead (or the password in PGPASSWORD)');
  }
  const given = values.state === undefined ? (values.store ?? env['VANE_STORE']) : `file:${values.state}`;
  if (given === undefined) throw new Error('--state FILE or --store STORE (or VANE_STORE) is required');
  const setting = parseStoreSetting(given);
  if (typeof setting === 'string') throw new Error(`the store: ${setting}`);
  if (setting.kind === 'memory') throw new Error('a memory store keeps nothing to verify');
  let head: string | undefined;
  if (values['expect-head'] !== undefined) {
    head = values['expect-head'].trim();
    if (!isAuditHash(head))
      throw new Error('--expect-head takes the hash GET /admin/v1/audit/head gives (64 hex digits)');
  }
  const beside = setting.kind === 'file' ? besideKeyFile(setting.path) : undefined;
  const rootKeyFile = values['root-key-file'] ?? (beside !== undefined && existsSync(beside) ? beside : undefined);
  const rootKey = env['VANE_ROOT_KEY'];
  let keyring: Keyring | undefined;
  if ((rootKey !== undefined && rootKey.trim() !== '') || rootKeyFile !== undefined) {
    keyring = resolveKeyring({ rootKey, rootKeyFile }).keyring;
  }
  const read =
    setting.kind === 'file'
      ? { what: setting.path, entries: () => Promise.resolve(readStoredAudit(setting.path)) }
      : { what: describeStoreSetting(setting), entries: () => readPostgresAudit(setting.url) };
  return { read, head, keyring };
}

/** Runs `audit verify`; resolves with the exit code. */
export async function auditVerify(
  argv: string[],
  out: (line: string) => void,
  err: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let request: VerifyRequest | 'help';
  try {
    request = verifyRequest(argv, env);
  } catch (error) {
    err(`${(error as Error).message}\n\n${AUDIT_VERIFY_USAGE}`);
    return 2;
  }
  if (request === 'help') {
    out(AUDIT_VERIFY_USAGE);
    return 0;
  }
  const { read, head, keyring } = request;
  let entries: AuditRecord[];
  try {
    entries = await read.entries();
  } catch (error) {
    err(`vane-server audit verify: cannot read ${read.what}: ${(error as Error).message}`);
    return 2;
  }
  const keyFor = auditKeyLookup(keyring?.keys ?? []);
  const missing = [...new Set(entries.flatMap((e) => (e.keyed_by === undefined ? [] : [e.keyed_by])))].filter(
    (id) => keyFor(id) === undefined,
  );
  if (missing.length > 0) {
    err(
      `vane-server audit verify: the chain is keyed by audit key(s) ${missing.join(', ')}, derived from root keys not ` +
        'given: give every root key that keyed it (retired ones too) in VANE_ROOT_KEY or --root-key-file',
    );
    return 2;
  }
  const broken = verifyAuditChain(entries, keyFor);
  if (broken) {
    err(`audit broken at entry ${broken.seq} (position ${broken.index + 1} of ${entries.length}): ${broken.problem}`);
    return 1;
  }
  const headProblem = head === undefined ? undefined : checkAuditHead(entries, head);
  if (headProblem !== undefined) {
    err(`audit broken against the kept head: ${headProblem}`);
    return 1;
  }
  const keyed = entries.some((e) => e.keyed_by !== undefined) ? ', keyed' : '';
  const position = head === undefined ? -1 : entries.findIndex((entry) => entry.hash === head);
  const since = head === undefined ? '' : `, the kept head holds (${entries.length - 1 - position} entries since)`;
  out(`audit intact: ${entries.length} entries, chain verified${keyed}${since}`);
  return 0;
}
