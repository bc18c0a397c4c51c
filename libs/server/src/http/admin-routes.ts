import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { authorize } from '../auth/authorize.js';
import { matchOperation, readOperationBody } from './admin-operations.js';
import { guessAdminToken, tooManyGuesses } from '../auth/admin-token.js';
import { HttpError } from '../errors/http-error.js';
import { sendJsonPayload } from './http-io.js';
import type { ServerContext } from './server-context.js';

/**
 * Serves the admin API under `/admin/v1/` (PROTOCOL §10), which stands in for
 * the management console. It answers at any host, behind an admin token:
 * the owner token, or a scoped token that sees only its projects or
 * services (`404` for the others) and holds only its rights (`403` for the
 * rest). Every route is an entry of `ADMIN_OPERATIONS` (admin-operations.ts); each request is
 * authorized by {@link authorize} from the entry's right and target before
 * its body is read. The web console's own calls come with the principal of
 * its session (`principal`), checked before.
 */
export async function handleAdminRoute(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
  { principal: given }: { principal?: AdminPrincipal } = {},
): Promise<void> {
  const principal = given ?? checkAdminToken(ctx, req);
  const method = req.method ?? 'GET';
  const matched = matchOperation(method, segments.slice(2)); // after 'admin', 'v1'
  if (matched === undefined) throw notFound(req);
  const { operation, params } = matched;
  const what = `${operation.method} /admin/v1${operation.path}`;
  const service = authorize(principal, operation.right, operation.target(params), ctx.store, what);
  const body = await readOperationBody(operation, req);
  for (const right of operation.extraRights?.(body) ?? []) {
    authorize(principal, right, operation.target(params), ctx.store, `${what} with this body`);
  }
  const result = await operation.run({ ctx, req, principal, params, body, service });
  await answer(ctx, res, result.status, result.body);
}

/** Answers once every change made so far is durable: the body is rendered first, so it holds nothing that is not. */
async function answer(ctx: ServerContext, res: ServerResponse, status: number, body: unknown): Promise<void> {
  const payload = Buffer.from(JSON.stringify(body));
  await ctx.changes.whenDurable();
  sendJsonPayload(res, status, payload);
}

/** Who the bearer token is; 401 otherwise, 429 while its address must wait. */
function checkAdminToken(ctx: ServerContext, req: IncomingMessage): AdminPrincipal {
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  // No token at all is no guess: refused, and not counted.
  if (given !== undefined) {
    const guess = guessAdminToken(ctx, req, given);
    if (guess.outcome === 'right') return guess.principal;
    if (guess.outcome === 'throttled') throw tooManyGuesses(guess.retryAfterSeconds);
  }
  throw HttpError.unauthorized('the admin API needs "Authorization: Bearer <admin token>"');
}

function notFound(req: IncomingMessage): HttpError {
  return HttpError.notFound(`no route ${req.method ?? 'GET'} ${req.url?.split('?')[0] ?? ''}`);
}
