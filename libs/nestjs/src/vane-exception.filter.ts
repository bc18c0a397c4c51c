import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { VaneErrorCode, VaneLogger } from '@vane/client';
import { answerVaneError, hasVaneErrorCode, VANE_ERROR_ANSWERS, type VaneErrorBody } from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import { throwError, type Observable } from 'rxjs';

/** Options of {@link VaneExceptionFilter} (the module's `exceptionFilter` option). */
export interface VaneExceptionFilterOptions {
  /**
   * Statuses to answer instead of the table's, by code (e.g. `{ VANE_RATE_LIMITED: 429 }`).
   * @default the table of `VANE_ERROR_ANSWERS`: 503 when the service refuses the app, 502 when it cannot be reached (504 on a timeout), 500 for the app's own mistakes
   */
  readonly statuses?: Partial<Record<VaneErrorCode, number>>;
}

/**
 * Matches the client's typed errors by their stable code (so copies of the
 * classes loaded twice, ES module and CommonJS, still match), and nothing
 * else: Nest's `@Catch()` asks `instanceof`, so every other exception goes
 * on to the app's own filters or Nest's default.
 */
class AnyVaneClientError {
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasVaneErrorCode(value, VANE_ERROR_ANSWERS);
  }
}

/** What a GraphQL caller gets for a Vane error: the fixed message, the code and the status in `extensions`. */
export class VaneGraphQLError extends Error {
  /** GraphQL error extensions: graphql-js copies them from the error a resolver's filter returns. */
  readonly extensions: { readonly code: VaneErrorCode; readonly statusCode: number };

  /** @param body - the answer's body. */
  constructor(body: VaneErrorBody) {
    super(body.message);
    this.name = 'VaneGraphQLError';
    this.extensions = { code: body.code, statusCode: body.statusCode };
  }
}

/**
 * Answers the client's typed errors that a handler lets escape the way
 * `@vane/express`'s `errorHandler()` and `@vane/fastify`'s do (one table,
 * `VANE_ERROR_ANSWERS` in `@vane/client`): the service refusing the app
 * 503, unreachable 502 (504 on a timeout), the app's own mistakes 500,
 * `Retry-After` when the service gave a delay, and the body
 * `{ statusCode, code, message }` with a fixed message that names no key and
 * no value. In GraphQL the same as a {@link VaneGraphQLError}; in a
 * microservice the body as the error; on a WebSocket an `exception` event
 * with it. Every other exception is left to the app's filters.
 *
 * Registered globally by `VaneModule` unless `exceptionFilter: false`; statuses
 * change by code with `exceptionFilter: { statuses: { VANE_RATE_LIMITED: 429 } }`.
 * Elsewhere: `app.useGlobalFilters(new VaneExceptionFilter())` or `@UseFilters(VaneExceptionFilter)`.
 */
@Catch(AnyVaneClientError)
export class VaneExceptionFilter implements ExceptionFilter<Error & { readonly code: VaneErrorCode }> {
  readonly #statuses: Partial<Record<VaneErrorCode, number>>;
  readonly #logger: VaneLogger | undefined;
  readonly #adapterHost: HttpAdapterHost | undefined;

  /**
   * @param options - statuses by code.
   * @param logger - where the full error (its own message, free of keys and values) is logged: 5xx as errors, 4xx as warnings; none by default.
   * @param adapterHost - Nest's HTTP adapter, to answer through it (the module passes it); without it, Express's and Fastify's responses are told apart by their methods.
   */
  constructor(options: VaneExceptionFilterOptions = {}, logger?: VaneLogger, adapterHost?: HttpAdapterHost) {
    this.#statuses = options.statuses ?? {};
    this.#logger = logger;
    this.#adapterHost = adapterHost;
  }

  /** Answers `exception` on the transport of `host`. */
  catch(exception: Error & { readonly code: VaneErrorCode }, host: ArgumentsHost): unknown {
    const { status, retryAfterSeconds, body } = answerVaneError(exception, VANE_ERROR_ANSWERS, this.#statuses);
    const type = host.getType<string>();
    this.#log(type, host, status, exception);
    if (type === 'graphql') return new VaneGraphQLError(body);
    if (type === 'rpc') return throwError(() => ({ status: 'error', ...body })) as Observable<never>;
    if (type === 'ws') {
      const socket = host.switchToWs().getClient<{ emit?(event: string, data: unknown): unknown }>();
      socket.emit?.('exception', { status: 'error', ...body });
      return undefined;
    }
    const response = host.switchToHttp().getResponse<HttpResponse>();
    const adapter = this.#adapterHost?.httpAdapter;
    if (adapter !== undefined) {
      if (retryAfterSeconds !== undefined) adapter.setHeader(response, 'Retry-After', String(retryAfterSeconds));
      adapter.reply(response, body, status);
      return undefined;
    }
    if (retryAfterSeconds !== undefined) header(response, 'Retry-After', String(retryAfterSeconds));
    send(response, status, body);
    return undefined;
  }

  #log(type: string, host: ArgumentsHost, status: number, exception: Error & { readonly code: string }): void {
    if (this.#logger === undefined) return;
    const request = type === 'http' ? host.switchToHttp().getRequest<HttpRequest>() : undefined;
    const where = request === undefined ? type : `${request.method ?? ''} ${pathOf(request)}`;
    // The client's messages never hold an API key or a secret value.
    const line = `${where}: ${status} ${exception.code}: ${exception.message}`;
    if (status >= 500) this.#logger.error(line);
    else this.#logger.warn(line);
  }
}

/** Catches nothing: what `exceptionFilter: false` registers (a module's providers are fixed, its options are not). */
class NoExceptions {
  static [Symbol.hasInstance](): boolean {
    return false;
  }
}

@Catch(NoExceptions)
class NoVaneExceptionFilter implements ExceptionFilter {
  catch(): void {
    // Never called: its @Catch() matches nothing.
  }
}

/**
 * Refuses an `exceptionFilter` option that is not `true`, `false` or an
 * object (checked before the client starts, so nothing is left open).
 * @internal
 */
export function checkExceptionFilterOption(option: unknown): void {
  if (option !== undefined && typeof option !== 'boolean' && (typeof option !== 'object' || option === null))
    throw new InvalidArgumentError(
      `exceptionFilter must be true, false or { statuses }, not ${option === null ? 'null' : typeof option}`,
    );
}

/**
 * The filter the module registers for its `exceptionFilter` option.
 * @internal
 */
export function vaneExceptionFilterOf(
  option: boolean | VaneExceptionFilterOptions | undefined,
  logger: VaneLogger,
  adapterHost: HttpAdapterHost,
): ExceptionFilter {
  checkExceptionFilterOption(option);
  if (option === false) return new NoVaneExceptionFilter();
  return new VaneExceptionFilter(typeof option === 'object' ? option : {}, logger, adapterHost);
}

/** The request of either HTTP platform, as far as the log line reads it. */
interface HttpRequest {
  readonly method?: string;
  readonly url?: string;
  readonly originalUrl?: string;
  readonly raw?: { readonly url?: string };
}

/** The response of Express (`status`/`json`/`setHeader`) or Fastify (`code`/`send`/`header`). */
interface HttpResponse {
  status?(code: number): HttpResponse;
  json?(body: unknown): unknown;
  setHeader?(name: string, value: string): unknown;
  code?(code: number): HttpResponse;
  header?(name: string, value: string): unknown;
  send?(body: unknown): unknown;
}

/** The path without its query (a query may carry tokens). */
function pathOf(request: HttpRequest): string {
  const url = request.originalUrl ?? request.raw?.url ?? request.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function header(response: HttpResponse, name: string, value: string): void {
  if (response.setHeader !== undefined) response.setHeader(name, value);
  else response.header?.(name, value);
}

function send(response: HttpResponse, status: number, body: VaneErrorBody): void {
  if (response.code !== undefined && response.send !== undefined) {
    response.code(status).send?.(body);
    return;
  }
  response.status?.(status).json?.(body);
}
