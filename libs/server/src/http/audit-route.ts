import type { IncomingMessage } from 'node:http';
import { queryAudit, type AuditPage } from '../domain/audit-query.js';
import type { AuditRecord } from '../domain/model.js';
import { HttpError } from '../errors/http-error.js';
import type { ServerContext } from './server-context.js';

/** Entries per page when `limit` is not given. */
const DEFAULT_LIMIT = 100;
/** The most entries one page holds. */
const MAX_LIMIT = 1000;

/**
 * `GET /admin/v1/audit?service=&key=&actor=&since=&until=&limit=&cursor=`
 * (PROTOCOL §10): one page, newest first, of the entries `visible` lets the
 * asker see.
 *
 * @throws HttpError 400 for a bad filter, limit or cursor.
 */
export function readAuditPage(
  ctx: ServerContext,
  req: IncomingMessage,
  visible: (entry: AuditRecord) => boolean,
): AuditPage {
  const query = new URL(req.url ?? '/', 'http://admin.invalid').searchParams;
  const text = (name: string): string | undefined => {
    const value = query.get(name);
    return value === null || value === '' ? undefined : value;
  };
  const instant = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) {
      throw HttpError.invalid(`${name}: must be an RFC 3339 timestamp`);
    }
    return ms;
  };
  const rawLimit = text('limit');
  const limit = rawLimit === undefined ? DEFAULT_LIMIT : Number(rawLimit);
  if (!/^\d+$/.test(rawLimit ?? '1') || limit < 1 || limit > MAX_LIMIT) {
    throw HttpError.invalid(`limit: must be an integer from 1 to ${MAX_LIMIT}`);
  }
  try {
    return queryAudit(
      ctx.store.data.audit,
      {
        service: text('service'),
        key: text('key'),
        actor: text('actor'),
        sinceMs: instant('since'),
        untilMs: instant('until'),
        visible,
      },
      limit,
      text('cursor'),
    );
  } catch (error) {
    if (error instanceof RangeError) throw HttpError.invalid(error.message);
    throw error;
  }
}
