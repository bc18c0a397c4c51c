import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LogFields, VaneServerLogger } from '../observability/logger.js';
import { scrubLogText } from '../observability/log-text.js';

/** What the server knows of the request being handled, wherever its work goes. */
export interface RequestScope {
  /** The request id: the caller's `X-Request-Id` when it is a plain token, else generated. */
  readonly requestId: string;
  /** Who acts, once known (`admin`, a redacted key); writes log it. */
  actor: string | undefined;
}

/** Request ids a caller may choose: short, plain characters, nothing a log line could be forged with. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request scope of each request, carried through its async work
 * (AsyncLocalStorage), so a log line written deep in a write names the
 * request that caused it. One per server: no state shared by servers.
 */
export class RequestScopes {
  readonly #storage = new AsyncLocalStorage<RequestScope>();

  /** Runs `work` in a new scope for `req`; its id is also the answer's `X-Request-Id`. */
  run<T>(req: IncomingMessage, work: (scope: RequestScope) => T): T {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && CALLER_REQUEST_ID.test(given) ? given : randomUUID();
    const scope: RequestScope = { requestId, actor: undefined };
    return this.#storage.run(scope, () => work(scope));
  }

  /** The scope of the request being handled, if any. */
  current(): RequestScope | undefined {
    return this.#storage.getStore();
  }

  /** The fields a log line inside a request carries. */
  fields(): LogFields {
    const scope = this.current();
    return scope ? { request_id: scope.requestId } : {};
  }

  /**
   * `logger`, with the request id added to every line written inside a
   * request, and every message cleaned of credentials ({@link scrubLogText};
   * `known` are this server's own, such as its admin token).
   */
  wrap(logger: VaneServerLogger, known: readonly string[] = []): VaneServerLogger {
    const add = (fields: LogFields | undefined): LogFields | undefined => {
      const scope = this.current();
      return scope ? { request_id: scope.requestId, ...fields } : fields;
    };
    const clean = (message: string): string => scrubLogText(message, known);
    return {
      debug: logger.debug ? (message, fields) => logger.debug!(clean(message), add(fields)) : undefined,
      info: (message, fields) => logger.info(clean(message), add(fields)),
      warn: (message, fields) => logger.warn(clean(message), add(fields)),
      error: (message, fields) => logger.error(clean(message), add(fields)),
    };
  }
}
