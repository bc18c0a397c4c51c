import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OWNER_PRINCIPAL, tokenPrincipal, type AdminPrincipal } from '../auth/admin-principal.js';
import { allows, authorize, type AccessTarget } from '../auth/authorize.js';
import type { AdminRight } from '../domain/model.js';
import { matchPath } from '../http/admin-operations.js';
import { guessAdminToken, tooManyGuesses, type AdminTokenContext } from '../auth/admin-token.js';
import { drainRefusedBody, readBody, sendError } from '../http/http-io.js';
import type { AdminForwarder } from '../http/request-handler.js';
import { HttpError } from '../errors/http-error.js';
import type { ProxyTrust } from '../ops/proxy-trust.js';
import { AB_OPERATORS } from '../validation/index.js';
import type { ConsoleAssets } from './console-assets.js';
import type { ConsoleFeed } from './console-feed.js';
import { setConsoleHeaders } from './console-headers.js';
import type { ConsoleSession, ConsoleSessions } from '../auth/console-sessions.js';
import { consoleOverview, consoleServiceView, revealSecretValue, type ConsoleSource } from './console-view.js';

/** The console's parts, made once per server. */
export interface ConsoleRuntime {
  readonly sessions: ConsoleSessions;
  readonly feed: ConsoleFeed;
  readonly assets: ConsoleAssets;
}

/** What the console routes need from the server. */
export interface ConsoleRouteContext extends ConsoleSource, AdminTokenContext {
  readonly console: ConsoleRuntime;
  /** Who the client is behind a trusted proxy, and the scheme and host it asked for (`--trust-proxy`). */
  readonly proxy?: ProxyTrust;
}

/** Login forms are small; anything larger is not one. */
const MAX_LOGIN_BODY_BYTES = 8 * 1024;

/** Where the login form says the token was wrong; the page is static, the server fills this in. */
const LOGIN_ERROR_MARKER = '<!-- login-error -->';

/**
 * Serves the web console under `/console` (see the README's "Console"):
 * its pages and files, the login that trades the admin token for an
 * HttpOnly, SameSite=Strict session cookie, and `/console/api/`, which reads
 * the server's state for the page and forwards every change to the admin
 * API, so the console validates and refuses exactly as the admin API does.
 * Every change needs the session's CSRF token in `X-CSRF-Token`, which a
 * plain form post or another site cannot send.
 */
export async function handleConsoleRoute(
  ctx: ConsoleRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
  forwardToAdmin: AdminForwarder,
): Promise<void> {
  setConsoleHeaders(res);
  const method = req.method ?? 'GET';
  const [, page, ...rest] = segments; // segments[0] is 'console'
  let session = ctx.console.sessions.fromCookieHeader(req.headers.cookie);
  // A session ends with the token it was opened with: revoked (or replaced), it is no session.
  if (session && principalOf(ctx, session) === undefined) session = undefined;

  if (page === 'api') return api(ctx, req, res, rest, session, forwardToAdmin);
  if (method !== 'GET' && !sameOrigin(ctx, req)) return sendText(res, 403, 'cross-origin requests are refused');
  if (page === undefined && method === 'GET') return redirect(res, '/console/');
  if (page === '' && rest.length === 0 && method === 'GET') {
    return session ? sendAsset(ctx, res, 'index.html') : redirect(res, '/console/login');
  }
  if (page === 'login' && rest.length === 0) {
    if (method === 'GET') return session ? redirect(res, '/console/') : sendLoginPage(ctx, res, 200);
    if (method === 'POST') return login(ctx, req, res);
  }
  if (page === 'logout' && rest.length === 0 && method === 'POST') {
    if (!session) return redirect(res, '/console/login');
    const form = await readForm(req, res);
    if (form === undefined) return;
    if (!ctx.console.sessions.csrfMatches(session, form.get('csrf_token') ?? req.headers['x-csrf-token']?.toString())) {
      return sendText(res, 403, 'the CSRF token is missing or wrong: log out from the console page');
    }
    await ctx.console.sessions.logout(session);
    res.setHeader('set-cookie', ctx.console.sessions.clearingCookie(ctx.proxy?.protocol(req) === 'https'));
    return redirect(res, '/console/login');
  }
  if (page === 'assets' && rest.length === 1 && method === 'GET' && rest[0] !== 'index.html') {
    return sendAsset(ctx, res, rest[0]!);
  }
  sendText(res, 404, `no console page ${method} ${req.url?.split('?')[0] ?? ''}`);
}

/** One route of the console's own API (`/console/api/...`, besides the admin API it forwards). */
export interface ConsoleApiRoute {
  readonly method: 'GET' | 'POST';
  /** Under `/console/api`, `{name}` standing for one path segment. */
  readonly path: string;
  /** The right it needs; `none` for the session itself, which any logged-in page may read. */
  readonly right: AdminRight | 'none';
  /** What it reaches (see {@link authorize}). */
  readonly target: (params: Readonly<Record<string, string>>) => AccessTarget;
  readonly run: (call: ConsoleApiCall) => void;
}

/** What a console API route has to work with. */
export interface ConsoleApiCall {
  readonly ctx: ConsoleRouteContext;
  readonly res: ServerResponse;
  readonly session: ConsoleSession;
  readonly principal: AdminPrincipal;
  readonly params: Readonly<Record<string, string>>;
}

/** The console's own API, one entry per route; each is authorized by {@link authorize} as the admin API's are. */
export const CONSOLE_API_ROUTES: readonly ConsoleApiRoute[] = [
  {
    method: 'GET',
    path: '/session',
    right: 'none',
    target: () => ({ kind: 'visible' }),
    run: ({ res, session, principal }) =>
      sendJson(res, 200, {
        csrf_token: session.csrfToken,
        expires_at: new Date(session.expiresAtMs).toISOString(),
        // The page shows only what the token may do; the admin API checks again whatever the page sends.
        actor: principal.name,
        rights: [...principal.rights],
        scoped: principal.scope !== undefined,
        // The A/B rule form offers the server's own list, so the page never has one of its own to drift.
        ab_operators: AB_OPERATORS,
      }),
  },
  {
    // The overview lists services, as `GET /admin/v1/services` does: it takes the same right.
    method: 'GET',
    path: '/overview',
    right: 'read',
    target: () => ({ kind: 'visible' }),
    run: ({ ctx, res, principal }) => sendJson(res, 200, consoleOverview(ctx, principal)),
  },
  {
    method: 'GET',
    path: '/events',
    right: 'read',
    target: () => ({ kind: 'visible' }),
    run: ({ ctx, res, session }) =>
      // Each page sees what its token sees, and its feed ends with the token or its read right.
      ctx.console.feed.open(res, () => {
        const current = principalOf(ctx, session);
        if (current === undefined || !allows(current, 'read', { kind: 'visible' }, ctx.store)) return undefined;
        return JSON.stringify(consoleOverview(ctx, current));
      }),
  },
  {
    method: 'GET',
    path: '/services/{slug}',
    right: 'read',
    target: (params) => ({ kind: 'service', slug: params['slug']! }),
    run: ({ ctx, res, params }) => sendJson(res, 200, consoleServiceView(ctx, params['slug']!)!),
  },
  {
    method: 'POST',
    path: '/services/{slug}/secrets/{key}/versions/{version}/reveal',
    right: 'secrets:reveal',
    target: (params) => ({ kind: 'service', slug: params['slug']! }),
    run: ({ ctx, res, params }) => {
      const { slug, key, version } = params as Record<'slug' | 'key' | 'version', string>;
      const number = /^[1-9]\d{0,8}$/.test(version) ? Number(version) : NaN;
      const value = Number.isNaN(number) ? undefined : revealSecretValue(ctx, slug, key, number);
      if (value === undefined) {
        return sendJson(res, 404, { error: 'not_found', message: `secret "${key}" has no version ${version}` });
      }
      sendJson(res, 200, { value });
    },
  },
];

async function api(
  ctx: ConsoleRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
  session: ConsoleSession | undefined,
  forwardToAdmin: AdminForwarder,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (!session) return sendJson(res, 401, { error: 'unauthorized', message: 'log in to the console first' });
  const principal = principalOf(ctx, session)!;
  if (method !== 'GET') {
    if (!sameOrigin(ctx, req))
      return sendJson(res, 403, { error: 'forbidden', message: 'cross-origin requests are refused' });
    if (!ctx.console.sessions.csrfMatches(session, req.headers['x-csrf-token']?.toString())) {
      return sendJson(res, 403, {
        error: 'csrf_token_invalid',
        message: 'every change needs the session CSRF token in X-CSRF-Token: reload the console',
      });
    }
  }
  // The page never holds the admin token: the session, checked above, stands in for it.
  if (segments[0] === 'admin' && segments[1] === 'v1') return forwardToAdmin(segments, principal);
  for (const route of CONSOLE_API_ROUTES) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, segments);
    if (params === undefined) continue;
    if (route.right !== 'none') {
      authorize(principal, route.right, route.target(params), ctx.store, `${method} /console/api${route.path}`);
    }
    return route.run({ ctx, res, session, principal, params });
  }
  sendJson(res, 404, { error: 'not_found', message: `no console API route ${method} ${req.url?.split('?')[0] ?? ''}` });
}

async function login(ctx: ConsoleRouteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req, res);
  if (form === undefined) return;
  const given = form.get('token')?.trim() ?? '';
  const guess = guessAdminToken(ctx, req, given);
  if (guess.outcome === 'throttled') {
    const refusal = tooManyGuesses(guess.retryAfterSeconds);
    // A browser posting the form reads the login page again; anything else gets the protocol's error body.
    if (!/\btext\/html\b/.test(req.headers.accept ?? '')) return sendError(res, refusal);
    res.setHeader('retry-after', String(guess.retryAfterSeconds));
    return sendLoginPage(
      ctx,
      res,
      429,
      `Too many wrong tokens from your address. The next one is checked in ${guess.retryAfterSeconds} s.`,
    );
  }
  if (guess.outcome === 'wrong') return sendLoginPage(ctx, res, 401, 'That is not the admin token. Try again.');
  const session = ctx.console.sessions.login(
    guess.principal === OWNER_PRINCIPAL
      ? undefined
      : { name: guess.principal.name, hash: createHash('sha256').update(given).digest('hex') },
  );
  res.setHeader('set-cookie', ctx.console.sessions.cookieFor(session, ctx.proxy?.protocol(req) === 'https'));
  redirect(res, '/console/');
}

/** Who a session acts as; undefined when its token has been revoked (or replaced) since the login. */
function principalOf(ctx: ConsoleRouteContext, session: ConsoleSession): AdminPrincipal | undefined {
  if (session.token === undefined) return OWNER_PRINCIPAL;
  const token = ctx.store.token(session.token.name);
  if (!token || token.hash !== session.token.hash) return undefined;
  return tokenPrincipal(session.token.name, token);
}

/**
 * Whether a change comes from the console's own pages. Browsers send
 * `Sec-Fetch-Site` (and `Origin`) with every POST, PUT and DELETE; a request
 * with neither is not from a browser, so it carries no cookie unless one was
 * copied by hand.
 */
function sameOrigin(ctx: ConsoleRouteContext, req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = req.headers.origin;
  // Behind a trusted proxy the browser's origin is the proxy's (https://console.acme.internal).
  const scheme = ctx.proxy?.protocol(req) ?? 'http';
  const host = ctx.proxy?.host(req) ?? req.headers.host ?? '';
  return origin === undefined || origin === `${scheme}://${host}`;
}

/** Reads an `application/x-www-form-urlencoded` body; answers 413 itself (and resolves undefined) when too large. */
async function readForm(req: IncomingMessage, res: ServerResponse): Promise<URLSearchParams | undefined> {
  let body: Buffer;
  try {
    body = await readBody(req, MAX_LOGIN_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 413) throw error;
    sendText(res, 413, 'the form is too large');
    drainRefusedBody(req);
    return undefined;
  }
  return new URLSearchParams(body.toString('utf8'));
}

/** The login form, with `error` (plain text of ours, never anything the client sent) above it when given. */
function sendLoginPage(ctx: ConsoleRouteContext, res: ServerResponse, status: number, error?: string): void {
  const asset = ctx.console.assets.get('login.html')!;
  const html =
    error === undefined
      ? asset.body
      : asset.body
          .toString('utf8')
          .replace(LOGIN_ERROR_MARKER, `<p class="alert" role="alert" id="login-error">${error}</p>`);
  res.writeHead(status, { 'content-type': asset.contentType });
  res.end(html);
}

function sendAsset(ctx: ConsoleRouteContext, res: ServerResponse, name: string): void {
  const asset = ctx.console.assets.get(name);
  if (!asset) return sendText(res, 404, `no console file ${name}`);
  res.writeHead(200, { 'content-type': asset.contentType, 'content-length': String(asset.body.length) });
  res.end(asset.body);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'content-length': '0' });
  res.end();
}

function sendText(res: ServerResponse, status: number, text: string): void {
  const body = Buffer.from(`${text}\n`);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(body.length) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(payload.length),
  });
  res.end(payload);
}
