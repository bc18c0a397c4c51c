/**
 * The transport seam: the one narrow interface through which the client
 * talks HTTP, and its default implementation on undici.
 *
 * @packageDocumentation
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, EnvHttpProxyAgent, request as undiciRequest, type Dispatcher } from 'undici';

/** An HTTP request as the client hands it to a {@link Transport}. */
export interface TransportRequest {
  /** HTTP method. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Absolute URL. Its host is the `Host` header; transports must not rewrite it. */
  readonly url: string;
  /** Request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8 body, if any. */
  readonly body?: string;
  /** Aborts the request and its body; the client's timeouts work through it. */
  readonly signal: AbortSignal;
}

/** An HTTP response as a {@link Transport} returns it. */
export interface TransportResponse {
  /** HTTP status. */
  readonly status: number;
  /** A response header by lower-case name (several values joined by `, `). */
  header(name: string): string | undefined;
  /** The body, chunk by chunk (read it once: this, `text()` or `discard()`). */
  readonly body: AsyncIterable<Uint8Array>;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** Reads and drops the body, so the connection can be reused. */
  discard(): Promise<void>;
}

/**
 * What the client needs from HTTP. The default is undici (`UndiciTransport`);
 * provide your own to run the client over something else, or in tests.
 * A transport throws on network failures (any error; the client sanitises it).
 */
export interface Transport {
  /** Sends a request; resolves once the status and headers are in. */
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Releases connections the transport owns. */
  close(): Promise<void>;
}

/** True for `localhost` and names under `.localhost` (RFC 6761 §6.3). */
export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement that answers `127.0.0.1` for `.localhost` names
 * itself, whatever the system resolver does, and defers to `dns.lookup` for
 * every other name. Handles the `all: true` form Node uses for
 * `autoSelectFamily`.
 */
export function localhostAwareLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (isLocalhostName(hostname)) {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dnsLookup(hostname, { ...options, all: options.all === true }, (err, address, family) => {
    if (typeof address === 'string') callback(err, address, family);
    else callback(err, address);
  });
}

/**
 * The dispatcher the client builds when none is given: a direct agent that
 * resolves `.localhost` itself for loopback base URLs; for other hosts,
 * undici's `EnvHttpProxyAgent` when `HTTPS_PROXY`/`HTTP_PROXY` is set (which
 * honours `NO_PROXY`), else a plain agent.
 *
 * @param baseUrl - the service's base URL.
 * @param env - the environment to read proxy settings from.
 */
export function createDefaultDispatcher(baseUrl: URL, env: NodeJS.ProcessEnv = process.env): Dispatcher {
  const connect = { lookup: localhostAwareLookup };
  if (isLocalhostName(baseUrl.hostname)) return new Agent({ connect });
  const read = (upper: string): string | undefined => {
    const value = env[upper] ?? env[upper.toLowerCase()];
    return value === undefined || value === '' ? undefined : value;
  };
  const httpProxy = read('HTTP_PROXY');
  const httpsProxy = read('HTTPS_PROXY');
  if (httpProxy === undefined && httpsProxy === undefined) return new Agent({ connect });
  // Given explicitly so the choice follows `env` (undici would read process.env itself).
  return new EnvHttpProxyAgent({ connect, httpProxy, httpsProxy, noProxy: read('NO_PROXY') ?? '' });
}

/** Options of {@link UndiciTransport}. */
export interface UndiciTransportOptions {
  /** The undici dispatcher to send through. */
  readonly dispatcher: Dispatcher;
  /** Whether `close()` closes the dispatcher (true when the client built it). */
  readonly ownsDispatcher: boolean;
}

/** The default {@link Transport}, on `undici.request`. */
export class UndiciTransport implements Transport {
  readonly #dispatcher: Dispatcher;
  readonly #owns: boolean;

  /** @param options - the dispatcher and whether the transport owns it. */
  constructor(options: UndiciTransportOptions) {
    this.#dispatcher = options.dispatcher;
    this.#owns = options.ownsDispatcher;
  }

  /** Sends the request through undici. Timeouts are the caller's (via `signal`). */
  async request(req: TransportRequest): Promise<TransportResponse> {
    const res = await undiciRequest(req.url, {
      dispatcher: this.#dispatcher,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      // The client runs its own timeouts on injectable timers.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const headers = res.headers;
    const body = res.body;
    return {
      status: res.statusCode,
      header(name) {
        const v = headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      },
      body,
      text: () => body.text(),
      discard: async () => {
        await body.dump();
      },
    };
  }

  /** Closes the dispatcher if the transport built it; a user's dispatcher is left alone. */
  async close(): Promise<void> {
    if (this.#owns) await this.#dispatcher.destroy();
  }
}

/**
 * The transport a client (or a connectivity check) uses: the one given,
 * else undici over the given dispatcher (not closed by us), else over a
 * dispatcher of its own for `baseUrl` (closed with the transport).
 * @internal
 */
export function transportFor(
  options: { readonly transport?: Transport; readonly dispatcher?: Dispatcher },
  baseUrl: URL,
): Transport {
  if (options.transport !== undefined) return options.transport;
  return new UndiciTransport(
    options.dispatcher
      ? { dispatcher: options.dispatcher, ownsDispatcher: false }
      : { dispatcher: createDefaultDispatcher(baseUrl), ownsDispatcher: true },
  );
}
