/**
 * One HTTP request that answers JSON, for the sources of `vane`: errors
 * become {@link CliError}s that name the address, never a credential.
 *
 * @packageDocumentation
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { CliError } from '../cli-error.js';

/** How long one request may take, connection included. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The largest answer a source reads: a snapshot of 10,000 keys fits many times over. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** An answer: status, headers and the body's text. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** A request of a source. */
export interface HttpCall {
  readonly method?: 'GET' | 'POST';
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** What the address is, for messages: "the service", "the admin API". */
  readonly what: string;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Names under `.localhost` are loopback (PROTOCOL §1), whatever the system resolver says. */
function loopbackAwareLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dnsLookup(hostname, { ...options, all: options.all === true }, (err, address, family) => {
    if (typeof address === 'string') callback(err, address, family);
    else callback(err, address);
  });
}

/** Sends `call` and reads the whole answer. @throws CliError `VANE_CLI_UNREACHABLE` when no answer comes. */
export function httpCall(call: HttpCall): Promise<HttpAnswer> {
  const { url } = call;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const where = `${call.what} at ${url.origin}`;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: call.method ?? 'GET',
        headers: { accept: 'application/json', ...call.headers },
        lookup: loopbackAwareLookup,
        timeout: REQUEST_TIMEOUT_MS,
        // A connection of its own, closed with the answer. Node's global agent keeps sockets alive, and a
        // command's synchronous work (`vane refs` scans the app between the catalog and the audit) can
        // outlast the server's keep-alive timeout: the loop, blocked, never sees the server close the idle
        // socket, reuses it, and the request dies with ECONNRESET. A command sends a handful of requests.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy();
            reject(new CliError('VANE_CLI_BAD_ANSWER', `${where} answered more than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (err) => reject(unreachable(where, err)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (err) => reject(unreachable(where, err)));
    req.end(call.body);
  });
}

function unreachable(where: string, err: Error): CliError {
  const code = (err as NodeJS.ErrnoException).code;
  return new CliError('VANE_CLI_UNREACHABLE', `cannot reach ${where}: ${code ?? err.message}`, { cause: err });
}

/** Parses an answer's body as JSON. @throws CliError `VANE_CLI_BAD_ANSWER` */
export function answerJson(answer: HttpAnswer, where: string): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch (err) {
    throw new CliError('VANE_CLI_BAD_ANSWER', `${where} answered ${answer.status} with a body that is not JSON`, {
      cause: err,
    });
  }
}

/** The `error` and `message` of a protocol error body (§3), when the body is one. */
export function protocolError(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') {
      return typeof body.message === 'string' ? `${body.error}: ${body.message}` : body.error;
    }
  } catch {
    // Not a protocol body: the status says enough.
  }
  return `status ${answer.status}`;
}
