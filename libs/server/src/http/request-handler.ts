import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleConsoleRoute } from '../console/console-routes.js';
import type { LocalServerLogger } from '../logger.js';
import { NotFoundError } from '../domain/not-found-error.js';
import { ForbiddenError } from '../domain/forbidden-error.js';
import { ConflictError } from '../domain/conflict-error.js';
import { RootKeyError } from '../sealing/root-key-error.js';
import { SealedDataError } from '../sealing/sealed-data-error.js';
import { ValidationError } from '../validation/index.js';
import { handleAdminRoute } from './admin-routes.js';
import { HttpError } from './http-error.js';
import { sendError } from './http-io.js';
import type { ServerContext } from './server-context.js';
import { handleServiceRoute } from './service-routes.js';

/**
 * The server's one request listener. Every failure becomes a protocol error
 * answer; nothing a client sends can throw out of it.
 */
export function createRequestHandler(
  ctx: ServerContext,
  logger: LocalServerLogger,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    route(ctx, req, res).catch((error: unknown) => answerError(req, res, error, logger));
  };
}

/**
 * The header that tells a client a Vane service answered (PROTOCOL §3). Set
 * before routing, so every answer of the service carries it: 2xx, 304, each
 * error, the 404 of an unknown slug or route. The admin API and the console
 * are the server's own, not the service's.
 */
const PROTOCOL_HEADER = 'vane-protocol';

async function route(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const segments = path.split('/').slice(1);
  if (segments[0] !== 'admin' && segments[0] !== 'console') res.setHeader(PROTOCOL_HEADER, '1');
  if (!req.headers.host) throw HttpError.invalid('the Host header is required');
  if (segments[0] === 'v1') {
    allowBrowsers(res);
    if (req.method === 'OPTIONS') return answerPreflight(res);
    return handleServiceRoute(ctx, req, res, segments);
  }
  if (segments[0] === 'admin' && segments[1] === 'v1') return handleAdminRoute(ctx, req, res, segments);
  if (segments[0] === 'console') {
    return handleConsoleRoute(ctx, req, res, segments, (adminSegments, principal) =>
      handleAdminRoute(ctx, req, res, adminSegments, { principal }),
    );
  }
  throw HttpError.notFound(`no route ${req.method ?? 'GET'} ${path}: every route lives under /v1/`);
}

/**
 * Public keys are for browsers (SERVICE-SPEC, Authentication), so a frontend
 * on another origin (a dev server on :3000) may call `/v1/`. Keys travel in
 * headers, never cookies, so any origin is allowed. The admin API is not
 * opened to browsers.
 */
function allowBrowsers(res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', 'ETag, Retry-After, Vane-Protocol');
}

/** The CORS preflight of a `/v1/` route: 204 naming what a browser may send. */
function answerPreflight(res: ServerResponse): void {
  res.writeHead(204, {
    'access-control-allow-methods': 'GET, POST, PUT, DELETE',
    'access-control-allow-headers':
      'X-Service-API-Key, Authorization, Content-Type, If-None-Match, Last-Event-ID, Cache-Control',
    'access-control-max-age': '600',
  });
  res.end();
}

function answerError(req: IncomingMessage, res: ServerResponse, error: unknown, logger: LocalServerLogger): void {
  if (isClientAbort(req, error)) {
    // Nobody is left to answer: the client hung up mid-request. Routine, not a failure of ours.
    logger.debug?.(`client ended ${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0]!} before its answer`);
    res.destroy();
    return;
  }
  let answer: HttpError;
  if (error instanceof HttpError) answer = error;
  else if (error instanceof ValidationError) answer = HttpError.invalid(error.message, error);
  else if (error instanceof NotFoundError)
    answer = new HttpError(404, 'not_found', error.message, {}, {}, { cause: error });
  else if (error instanceof ForbiddenError)
    answer = new HttpError(403, 'forbidden', error.message, {}, {}, { cause: error });
  else if (error instanceof ConflictError)
    answer = new HttpError(409, 'conflict', error.message, {}, {}, { cause: error });
  else if (error instanceof RootKeyError || error instanceof SealedDataError)
    answer = HttpError.invalid(error.message, error);
  else {
    logger.error(`internal error: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown failure'}`);
    answer = new HttpError(500, 'internal_error', 'the local server failed to handle this request');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendError(res, answer);
}

/** Whether `error` is the client hanging up while its request was being read (`Error: aborted`, ECONNRESET). */
function isClientAbort(req: IncomingMessage, error: unknown): boolean {
  if (error instanceof HttpError || !req.destroyed) return false;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
