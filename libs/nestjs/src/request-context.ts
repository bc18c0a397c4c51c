import { ServerResponse } from 'node:http';
import type { ExecutionContext } from '@nestjs/common';

/**
 * Where a call's objects are among its handler arguments, as Nest documents
 * them (`ArgumentsHost`): HTTP `[request, response, next]`, RPC
 * `[data, context]`, WebSocket `[client, data]`.
 *
 * Read by position because `switchToHttp()` and its siblings assign three
 * new closures to the context on every call.
 */
const HTTP_REQUEST = 0;
/** @internal */
export const HTTP_RESPONSE = 1;
const RPC_DATA = 0;
const RPC_CONTEXT = 1;
const WS_CLIENT = 0;
const WS_DATA = 1;

/**
 * The transports `@vane/nestjs` tells apart: Nest's own context types
 * (`http` on Express or Fastify, `rpc` for microservices, `ws` for gateways)
 * and `graphql` (resolvers of `@nestjs/graphql`).
 */
export type VaneTransport = 'http' | 'graphql' | 'rpc' | 'ws';

/**
 * The transport of an execution context (`context.getType()`, which is
 * `graphql` in a resolver). Any other type a third-party transport brings is
 * returned as it is.
 */
export function transportOf(context: ExecutionContext): VaneTransport | (string & {}) {
  return context.getType<string>();
}

function objectOrUndefined(value: unknown): object | undefined {
  return typeof value === 'object' && value !== null ? value : undefined;
}

/** The GraphQL context of a resolver call: its third argument (`root, args, context, info`). */
function graphqlContextOf(context: ExecutionContext): object | undefined {
  return objectOrUndefined(context.getArgByIndex(2));
}

/**
 * "The request" of any execution context, where the user and the headers live:
 *
 * - `http`: the platform's request (an Express `Request` or a `FastifyRequest`);
 * - `graphql`: the HTTP request the GraphQL context carries (`context.req`,
 *   which `@nestjs/apollo` always sets), else the GraphQL context itself;
 * - `rpc`: the message's data, when it is an object;
 * - `ws`: the client (the socket), which lives as long as the connection.
 *
 * Both HTTP platforms give `headers` (lower-case names) and `query` (an
 * object); only Express has `req.get()`, so portable code reads `headers`.
 * `undefined` when the context has no such object.
 */
export function requestOf(context: ExecutionContext): object | undefined {
  switch (context.getType<string>()) {
    case 'http':
      return objectOrUndefined(context.getArgByIndex(HTTP_REQUEST));
    case 'graphql': {
      const gql = graphqlContextOf(context);
      return objectOrUndefined((gql as { req?: unknown } | undefined)?.req) ?? gql;
    }
    case 'rpc':
      return objectOrUndefined(context.getArgByIndex(RPC_DATA));
    case 'ws':
      return objectOrUndefined(context.getArgByIndex(WS_CLIENT));
    default:
      return undefined;
  }
}

/**
 * "The user" of any execution context, as authentication usually leaves it:
 * `request.user` over HTTP (Passport on Express or Fastify); in GraphQL the
 * HTTP request's `user`, else the GraphQL context's `user`; in a
 * microservice the message data's `user` (services vouch for their
 * callers); on a WebSocket the client's `user`, else `client.data.user`
 * (socket.io), never the message (a browser writes what it likes there).
 * `undefined` when there is none.
 */
export function userOf(context: ExecutionContext): unknown {
  const request = requestOf(context) as { user?: unknown; data?: unknown } | undefined;
  switch (context.getType<string>()) {
    case 'graphql':
      return request?.user ?? (graphqlContextOf(context) as { user?: unknown } | undefined)?.user;
    case 'ws':
      return request?.user ?? (objectOrUndefined(request?.data) as { user?: unknown } | undefined)?.user;
    default:
      return request?.user;
  }
}

/**
 * The object that stands for one call, which the call's values are kept on
 * (`CallState`: its pinned revision, its A/B batch, the mark a guard subclass
 * leaves): the HTTP request, the
 * GraphQL context (one per operation), the RPC data (or else its transport
 * context, made per message), the WebSocket message data when it is an
 * object. `undefined` (nothing cached) when no object lives exactly as long
 * as the call: a WebSocket client outlives its messages.
 * @internal
 */
export function callKeyOf(context: ExecutionContext): object | undefined {
  switch (context.getType<string>()) {
    case 'http':
      return objectOrUndefined(context.getArgByIndex(HTTP_REQUEST));
    case 'graphql':
      return graphqlContextOf(context);
    case 'rpc':
      return (
        objectOrUndefined(context.getArgByIndex(RPC_DATA)) ?? objectOrUndefined(context.getArgByIndex(RPC_CONTEXT))
      );
    case 'ws':
      return objectOrUndefined(context.getArgByIndex(WS_DATA));
    default:
      return undefined;
  }
}

/** What a call's end is told by: the Node response of an HTTP exchange. */
interface ClosingResponse {
  once(event: 'close', listener: () => void): unknown;
  readonly closed?: boolean;
}

function closingResponse(value: unknown): ClosingResponse | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // Express's response is Node's (tried first: a missing `raw` is looked up its whole prototype chain);
  // Fastify's reply carries it as `raw`.
  const raw = isNodeResponse(value) ? value : (value as { raw?: unknown }).raw;
  return isNodeResponse(raw) ? raw : undefined;
}

function isNodeResponse(value: unknown): value is ClosingResponse {
  // Node's own response class first: on Express's responses (a hidden class per response) each
  // property looked up below would be a lookup in V8's runtime, through the whole prototype chain.
  if (value instanceof ServerResponse) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { writeHead?: unknown }).writeHead === 'function' &&
    typeof (value as { once?: unknown }).once === 'function'
  );
}

/**
 * The Node HTTP response of a call, whose `close` event ends it: over HTTP
 * the platform's response (Express) or reply's `raw` (Fastify); in GraphQL
 * the response of the HTTP request the operation came in (`context.res`,
 * `context.reply`, or the request's `res`, which Express sets). `undefined`
 * for a microservice message, a WebSocket message, or GraphQL over another
 * transport: such calls end with their handler.
 * @internal
 */
export function responseOf(context: ExecutionContext): ClosingResponse | undefined {
  switch (context.getType<string>()) {
    case 'http':
      return closingResponse(context.getArgByIndex(HTTP_RESPONSE));
    case 'graphql': {
      const gql = graphqlContextOf(context) as { res?: unknown; reply?: unknown; req?: { res?: unknown } } | undefined;
      return closingResponse(gql?.res) ?? closingResponse(gql?.reply) ?? closingResponse(gql?.req?.res);
    }
    default:
      return undefined;
  }
}
