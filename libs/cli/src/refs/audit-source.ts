/**
 * Where a flag's last change comes from: the server's audit
 * (`GET /admin/v1/audit`, PROTOCOL §10), read with an admin token with the
 * `read` right.
 *
 * @packageDocumentation
 */
import { ADMIN_OPERATION_CATALOG, adminOperationPath } from '@vane/common';
import { CliError } from '../cli-error.js';
import { answerJson, httpCall, protocolError } from '../sources/http-json.js';
import { parseUrl } from '../sources/service-source.js';

/**
 * One change the server's audit records, as `GET /admin/v1/audit` answers it
 * (PROTOCOL §10; `old`/`new` for configs and flags only).
 */
export interface AuditChange {
  /** RFC 3339. */
  readonly at: string;
  /** Who made it: an admin token's name (`admin` for the owner token), a key redacted, or `workload:<trust>`. */
  readonly actor: string;
  /** What changed, e.g. `flag.set`: the flag actions start with `flag.`. */
  readonly action: string;
  /** The service changed. */
  readonly service: string;
  /** The config, flag or secret key changed. */
  readonly key: string;
  /** The service's revision after the change. */
  readonly revision?: number;
  /** The value before (configs and flags only). */
  readonly old?: unknown;
  /** The value after (configs and flags only). */
  readonly new?: unknown;
}

/** What the stale computation needs from an audit. */
export interface AuditSource {
  /** The newest change of flag `key` of `service`, or `undefined` when the audit has none. */
  lastFlagChange(service: string, key: string): Promise<AuditChange | undefined>;
}

/** The admin operation read: `GET /admin/v1/audit`, as the server's operations table names it. */
const READ_AUDIT = 'readAudit';

/** Entries read per page. */
const PAGE_SIZE = 100;

/** The server's audit over HTTP. */
export class HttpAuditSource implements AuditSource {
  readonly #base: URL;
  readonly #token: string;

  /** @throws CliError `VANE_CLI_USAGE` for a URL that is not http(s). */
  constructor(adminUrl: string, adminToken: string) {
    this.#base = parseUrl(adminUrl, '--admin-url');
    this.#token = adminToken;
  }

  /** Reads the key's entries, newest first, until the first flag change. @throws CliError */
  async lastFlagChange(service: string, key: string): Promise<AuditChange | undefined> {
    let cursor: string | null = null;
    const where = `the audit at ${this.#base.origin}`;
    do {
      const url = new URL(adminOperationPath(READ_AUDIT, {}), this.#base);
      url.searchParams.set('service', service);
      url.searchParams.set('key', key);
      url.searchParams.set('limit', String(PAGE_SIZE));
      if (cursor !== null) url.searchParams.set('cursor', cursor);
      const answer = await httpCall({
        url,
        method: ADMIN_OPERATION_CATALOG[READ_AUDIT].method,
        what: 'the audit',
        headers: { authorization: `Bearer ${this.#token}` },
      });
      if (answer.status === 401) throw new CliError('VANE_CLI_REFUSED', `${where} refused the admin token`);
      if (answer.status !== 200) throw new CliError('VANE_CLI_REFUSED', `${where} answered ${protocolError(answer)}`);
      const page = answerJson(answer, where) as { entries?: unknown; next?: unknown };
      if (!Array.isArray(page.entries)) throw new CliError('VANE_CLI_BAD_ANSWER', `${where}: no "entries" array`);
      for (const entry of page.entries as AuditChange[]) {
        if (entry.key === key && typeof entry.action === 'string' && entry.action.startsWith('flag.')) return entry;
      }
      cursor = typeof page.next === 'string' ? page.next : null;
    } while (cursor !== null);
    return undefined;
  }
}
