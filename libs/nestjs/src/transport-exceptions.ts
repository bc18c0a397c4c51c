import { ForbiddenException, NotFoundException, type ExecutionContext } from '@nestjs/common';
import { FeatureFlagGraphQLError } from './errors/feature-flag-graphql.error.js';
import { loadOptionalPeer } from './utils/optional-peer.js';

/** `RpcException` or `WsException`: both take a message (or an object) as their error. */
type TransportExceptionClass = new (error: string | object) => Error;

/**
 * The exception classes of the transports whose exception filters only
 * answer their own class (anything else becomes "Internal server error").
 * They live in packages an HTTP app does not have, so they are imported
 * lazily, the first time a refusal on that transport needs one, and kept.
 */
const loaded = new Map<string, TransportExceptionClass>();

const LOADERS: Readonly<Record<string, () => Promise<TransportExceptionClass>>> = {
  rpc: async () =>
    (
      await loadOptionalPeer(
        '@nestjs/microservices',
        'A @FeatureFlag() refusal in a microservice',
        () => import('@nestjs/microservices'),
      )
    ).RpcException,
  ws: async () =>
    (
      await loadOptionalPeer(
        '@nestjs/websockets',
        'A @FeatureFlag() refusal in a WebSocket gateway',
        () => import('@nestjs/websockets'),
      )
    ).WsException,
};

/**
 * Resolves once {@link refusalFor} can build the refusal of this context's
 * transport; `undefined` when it already can (HTTP, GraphQL, or a transport
 * class loaded before), so a refusal stays synchronous after the first.
 * @internal
 */
export function refusalReady(context: ExecutionContext): Promise<void> | undefined {
  const transport = context.getType<string>();
  const load = LOADERS[transport];
  if (load === undefined || loaded.has(transport)) return undefined;
  return load().then((cls) => {
    loaded.set(transport, cls);
  });
}

/** The URL Nest's own "route not found" answer names: `originalUrl` on Express, the raw request's URL on Fastify. */
function notFoundMessage(request: unknown): string | undefined {
  const req = request as { raw?: { method?: string; url?: string; originalUrl?: string } } | undefined;
  const raw = (req?.raw ?? req) as { method?: string; url?: string; originalUrl?: string } | undefined;
  const url = raw?.originalUrl || raw?.url;
  return raw?.method !== undefined && url !== undefined ? `Cannot ${raw.method} ${url}` : undefined;
}

/**
 * The refusal a transport expects for `404` (the handler looks absent) or
 * `403`: over HTTP a `NotFoundException` worded like the platform's own
 * route-not-found answer (`Cannot GET /path?query`, from the URL Express or
 * Fastify report) or a `ForbiddenException`; in GraphQL a
 * {@link FeatureFlagGraphQLError} (`extensions.code` `NOT_FOUND` or
 * `FORBIDDEN`); in a microservice an `RpcException`, on a WebSocket a
 * `WsException` (message `Not Found` or `Forbidden`). Call
 * {@link refusalReady} first.
 * @internal
 */
export function refusalFor(status: 403 | 404, context: ExecutionContext): Error {
  const transport = context.getType<string>();
  const text = status === 404 ? 'Not Found' : 'Forbidden';
  const cls = loaded.get(transport);
  if (cls !== undefined) return new cls(text);
  if (transport === 'graphql') return new FeatureFlagGraphQLError(status);
  if (status === 403) return new ForbiddenException();
  const message = transport === 'http' ? notFoundMessage(context.switchToHttp().getRequest()) : undefined;
  return message === undefined ? new NotFoundException() : new NotFoundException(message);
}
