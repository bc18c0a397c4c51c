/**
 * `vane-server audit verify --state FILE`: checks the audit's hash chain in
 * a state file and its journals, and names the first entry edited, removed
 * or reordered. No key is needed: the audit holds no secret value.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyAuditChain } from '../audit/audit-chain.js';
import type { AuditRecord } from '../domain/model.js';
import { readJournalFile } from '../persistence/journal-file.js';
import { journalPathOf } from '../persistence/state-journal.js';

const USAGE = `Usage: vane-server audit verify --state FILE

  Checks the hash chain of the audit in the state file FILE and its journal
  (FILE.journal), and reports the first entry edited, removed or reordered.
  Exit code 0: the chain holds; 1: it is broken (the line names the entry); 2: usage.`;

/** The audit of a state file and its journals, oldest first, as a replay would see it. */
export function readStoredAudit(statePath: string): AuditRecord[] {
  const state = JSON.parse(readFileSync(statePath, 'utf8')) as { audit?: AuditRecord[] };
  const entries = [...(state.audit ?? [])];
  for (const path of [`${journalPathOf(statePath)}.old`, journalPathOf(statePath)]) {
    for (const change of readJournalFile(path)?.changes ?? []) {
      const entry = change.audit;
      if (entry?.seq === undefined) continue;
      // A record already folded into the state file carries an entry the state holds.
      const last = entries[entries.length - 1];
      if (last === undefined || entry.seq > last.seq) entries.push(entry as AuditRecord);
      else if (entries[entry.seq - 1]?.hash !== entry.hash) entries.push(entry as AuditRecord);
    }
  }
  return entries;
}

/** Runs `audit verify`; resolves with the exit code. */
export async function auditVerify(
  argv: string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let statePath: string | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { state: { type: 'string' }, store: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    });
    if (values.help) {
      out(USAGE);
      return 0;
    }
    statePath = values.state ?? (values.store?.startsWith('file:') ? values.store.slice('file:'.length) : undefined);
  } catch (error) {
    err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (statePath === undefined) {
    err(`--state FILE is required\n\n${USAGE}`);
    return 2;
  }
  let entries: AuditRecord[];
  try {
    entries = readStoredAudit(statePath);
  } catch (error) {
    err(`vane-server audit verify: cannot read ${statePath}: ${(error as Error).message}`);
    return 2;
  }
  const broken = verifyAuditChain(entries);
  if (broken) {
    err(`audit broken at entry ${broken.seq} (position ${broken.index + 1} of ${entries.length}): ${broken.problem}`);
    return 1;
  }
  out(`audit intact: ${entries.length} entries, chain verified`);
  return 0;
}
