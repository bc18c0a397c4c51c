import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import type { VaneServerLogger } from '../observability/logger.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ForbiddenError } from '../auth/forbidden-error.js';
import { ConflictError } from '../errors/conflict-error.js';
import { RootKeyError } from '../sealing/root-key-error.js';
import { SealedDataError } from '../sealing/sealed-data-error.js';
import { ValidationError } from '../validation/index.js';
import { handleAdminRoute } from './admin-routes.js';
import { HttpError } from '../errors/http-error.js';
import { StoreUnavailableError, CommitOutcomeUnknownError } from '../errors/store-errors.js';
import { hostName, sendError } from './http-io.js';
import type { ServerContext } from './server-context.js';
import { handleServiceRoute } from './service-routes.js';
import { ALL_ROUTES, type ListenerRoutes } from '../ops/listener-routes.js';
import { handleOpsRoute } from '../ops/ops-routes.js';
import { routeLabel } from '../ops/route-label.js';
import type { RefusalReason } from '../ops/server-metrics.js';
import type { OpenApiRoute } from './openapi-route.js';

/**
 * Sends a request on to the admin API (`/admin/v1/...`) as the console, whose
 * session stands in for the admin token; its answer is the console's answer.
 */
export type AdminForwarder = (adminSegments: string[], principal: AdminPrincipal) => Promise<void>;

/**
 * Serves `/console/...` (the web console, `console/`): handed in by the
 * wiring, as HTTP stands below the console. `forwardToAdmin` answers the
 * console's API calls through the admin API.
 */
export type ConsoleRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
  forwardToAdmin: AdminForwarder,
) => Promise<void>;

/** `Retry-After` of a write refused while the store is unreachable, in seconds. */
const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * A listener's request handler, serving the route families `routes` names.
 * Every failure becomes a protocol error answer; nothing a client sends can
 * throw out of it. Each request runs in a scope with its id (answered as
 * `X-Request-Id`) and is counted by route, method and status. `openApi`
 * serves the OpenAPI document wherever the admin API is served, `consoleRoute`
 * the web console there too.
 */
export function createRequestHandler(
  ctx: ServerContext,
  logger: VaneServerLogger,
  openApi: OpenApiRoute,
  consoleRoute: ConsoleRoute,
  routes: ListenerRoutes = ALL_ROUTES,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const label = routeLabel((req.url ?? '/').split('?')[0]!);
    ctx.scopes.run(req, (scope) => {
      res.once('close', () => {
        // A stream's duration is its life, not a latency.
        const seconds = label === 'stream' ? undefined : Number(process.hrtime.bigint() - started) / 1e9;
        ctx.metrics.request(label, req.method ?? 'GET', res.statusCode, seconds);
        // The console's login answers its refusals itself (a page, not an error): judged by status for both.
        if ((label === 'admin' || label === 'console') && (res.statusCode === 401 || res.statusCode === 429)) {
          noteRefusal(ctx, req, res.statusCode === 401 ? 'unauthorized' : 'throttled', scope.requestId, logger);
        }
      });
      res.setHeader('x-request-id', scope.requestId);
      route(ctx, req, res, routes, openApi, consoleRoute).catch((error: unknown) =>
        answerError(ctx, req, res, error, logger),
      );
    });
  };
}

/**
 * The header that tells a client a Vane service answered (PROTOCOL §3). Set
 * before routing, so every answer of the service carries it: 2xx, 304, each
 * error, the 404 of an unknown slug or route. The admin API and the console
 * are the server's own, not the service's.
 */
const PROTOCOL_HEADER = 'vane-protocol';

async function route(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  routes: ListenerRoutes,
  openApi: OpenApiRoute,
  consoleRoute: ConsoleRoute,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!;
  const segments = path.split('/').slice(1);
  if (routes.ops && (await handleOpsRoute(ctx, req, res, path))) return;
  const adminPath = segments[0] === 'admin' || segments[0] === 'console';
  if (adminPath && !servesAdmin(ctx, req, routes)) {
    throw HttpError.notFound(`no route ${req.method ?? 'GET'} ${path} on this address`);
  }
  if (!adminPath && !routes.service) throw HttpError.notFound(`no route ${req.method ?? 'GET'} ${path}`);
  if (!adminPath) res.setHeader(PROTOCOL_HEADER, '1');
  if (!req.headers.host) throw HttpError.invalid('the Host header is required');
  if (segments[0] === 'v1') {
    allowBrowsers(res);
    if (req.method === 'OPTIONS') return answerPreflight(res);
    return handleServiceRoute(ctx, req, res, segments);
  }
  if (openApi.matches(req.method, path)) return openApi.serve(res);
  if (segments[0] === 'admin' && segments[1] === 'v1') return handleAdminRoute(ctx, req, res, segments);
  if (segments[0] === 'console') {
    return consoleRoute(req, res, segments, (adminSegments, principal) =>
      handleAdminRoute(ctx, req, res, adminSegments, { principal }),
    );
  }
  throw HttpError.notFound(`no route ${req.method ?? 'GET'} ${path}: every route lives under /v1/`);
}

/**
 * Whether this request may reach the admin API and the console: only on a
 * listener that serves them, and never under a service's public host name
 * (`shop.vane.acme.internal` for `--public-url https://{slug}.vane.acme.internal`),
 * so a proxy that forwards the services' names cannot expose them.
 */
function servesAdmin(ctx: ServerContext, req: IncomingMessage, routes: ListenerRoutes): boolean {
  if (!routes.admin) return false;
  const host = ctx.proxy.host(req);
  return !ctx.serviceHosts || !host || !ctx.serviceHosts.test(hostName(host));
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

function answerError(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  logger: VaneServerLogger,
): void {
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
  else if (error instanceof StoreUnavailableError) {
    logger.error(`store unavailable: ${error.message}`);
    answer = new HttpError(
      503,
      'store_unavailable',
      'the store cannot take writes right now; nothing was changed, retry later',
      {},
      { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
      { cause: error },
    );
  } else if (error instanceof CommitOutcomeUnknownError) {
    logger.error(`commit outcome unknown: ${error.message}`);
    answer = new HttpError(
      504,
      'commit_outcome_unknown',
      'the write was sent to the store and no answer came back: it may or may not have been applied; ' +
        'read the revision or the audit before you retry',
      {},
      {},
      { cause: error },
    );
  } else {
    logger.error(`internal error: ${error instanceof Error ? `${error.name}: ${error.message}` : 'unknown failure'}`);
    answer = new HttpError(500, 'internal_error', 'the local server failed to handle this request');
  }
  const reason = serviceRefusal(req, answer);
  if (reason) noteRefusal(ctx, req, reason, ctx.scopes.current()?.requestId, logger);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendError(res, answer);
}

/** Why the service interface refused a request, for the metrics; undefined for other answers and routes. */
function serviceRefusal(req: IncomingMessage, answer: HttpError): RefusalReason | undefined {
  const route = routeLabel((req.url ?? '/').split('?')[0]!);
  if (route === 'admin' || route === 'console') return undefined;
  if (answer.protocolCode === 'rate_limited') return 'rate_limited';
  if (answer.protocolCode === 'quarantined') return 'quarantined';
  if (answer.protocolCode === 'billing_overdue') return 'billing_overdue';
  return answer.status === 401 ? 'unauthorized' : undefined;
}

/** Counts a refusal, and logs refused credentials and throttled guesses (never the credential itself). */
function noteRefusal(
  ctx: ServerContext,
  req: IncomingMessage,
  reason: RefusalReason,
  requestId: string | undefined,
  logger: VaneServerLogger,
): void {
  ctx.metrics.refused(reason);
  if (reason !== 'unauthorized' && reason !== 'throttled') return;
  const route = routeLabel((req.url ?? '/').split('?')[0]!);
  logger.warn(reason === 'throttled' ? 'throttled a client guessing admin tokens' : `refused a credential (${route})`, {
    event: reason === 'throttled' ? 'credential_throttled' : 'credential_refused',
    route,
    client: ctx.proxy.clientAddress(req),
    request_id: requestId,
  });
}

/** Whether `error` is the client hanging up while its request was being read (`Error: aborted`, ECONNRESET). */
function isClientAbort(req: IncomingMessage, error: unknown): boolean {
  if (error instanceof HttpError || !req.destroyed) return false;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
