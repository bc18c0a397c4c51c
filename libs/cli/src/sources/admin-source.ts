/**
 * Reads a service's keys from the server with an admin token: names, types
 * and flag rules, never a secret value. The admin API (PROTOCOL §10) has no
 * route that lists a service's keys, so this reads the view the web console
 * reads (`GET /console/api/services/{slug}`), in a console session opened
 * with the token and closed after; a token scoped to `read` is enough.
 *
 * @packageDocumentation
 */
import { CliError } from '../cli-error.js';
import type { KeyCatalog } from '../catalog/key-catalog.js';
import { catalogOf, type ServiceMembers } from './catalog-reader.js';
import { answerJson, httpCall, protocolError, type HttpAnswer } from './http-json.js';
import { parseUrl } from './service-source.js';

/** Where the server's admin API is, and what to read. */
export interface AdminSourceOptions {
  /** The server's admin address (`http://127.0.0.1:4400`). */
  readonly adminUrl: string;
  /** An admin token with the `read` right on the service. */
  readonly adminToken: string;
  /** The service's slug. */
  readonly service: string;
}

function sessionCookie(answer: HttpAnswer): string | undefined {
  const cookies = answer.headers['set-cookie'] ?? [];
  return cookies.map((cookie) => cookie.split(';')[0]!).find((pair) => pair.includes('='));
}

/** Reads the service's keys through the admin token. @throws CliError */
export async function readAdminKeys(options: AdminSourceOptions): Promise<KeyCatalog> {
  const base = parseUrl(options.adminUrl, '--admin-url');
  const where = `the admin API at ${base.origin}`;
  const login = await httpCall({
    method: 'POST',
    url: new URL('/console/login', base),
    what: 'the admin API',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: options.adminToken }).toString(),
  });
  const cookie = login.status === 303 || login.status === 302 ? sessionCookie(login) : undefined;
  if (cookie === undefined) {
    const why = login.status === 401 ? 'refused the admin token' : `answered ${protocolError(login)} to the token`;
    throw new CliError('VANE_CLI_REFUSED', `${where} ${why}`);
  }
  try {
    const view = await httpCall({
      url: new URL(`/console/api/services/${encodeURIComponent(options.service)}`, base),
      what: 'the admin API',
      headers: { cookie },
    });
    if (view.status !== 200) {
      throw new CliError('VANE_CLI_REFUSED', `${where} answered ${protocolError(view)} for the service`);
    }
    const body = answerJson(view, where);
    if (typeof body !== 'object' || body === null) throw new CliError('VANE_CLI_BAD_ANSWER', `${where}: not a service`);
    const { configs, flags, secrets = {} } = body as ServiceMembers;
    return catalogOf(
      { configs, flags, secrets },
      { slug: options.service, origin: `the service "${options.service}" at ${base.origin}` },
      {
        abKnown: true,
        where: `the service "${options.service}"`,
      },
    );
  } finally {
    await logout(base, cookie);
  }
}

/** Ends the console session at once rather than leaving it to expire; a failure here changes nothing read. */
async function logout(base: URL, cookie: string): Promise<void> {
  try {
    const session = await httpCall({
      url: new URL('/console/api/session', base),
      what: 'the admin API',
      headers: { cookie },
    });
    const csrf = (JSON.parse(session.text) as { csrf_token?: unknown }).csrf_token;
    if (typeof csrf !== 'string') return;
    await httpCall({
      method: 'POST',
      url: new URL('/console/logout', base),
      what: 'the admin API',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': csrf },
      body: new URLSearchParams({ csrf_token: csrf }).toString(),
    });
  } catch {
    // The session expires by itself.
  }
}
