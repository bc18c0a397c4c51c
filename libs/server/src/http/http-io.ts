import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeJsonSyntaxError } from '../json/json-syntax-error.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json/json-depth.js';
import { HttpError } from '../errors/http-error.js';

/** Request bodies larger than this answer 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * How much of a refused body (a 413) is read and dropped after the answer, so
 * a client still uploading gets to read it; past this, or
 * {@link DRAIN_TIMEOUT_MS}, the connection is cut.
 */
export const MAX_DRAIN_BYTES = 16 * MAX_BODY_BYTES;

/** How long a refused body is drained at most, in milliseconds. */
export const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Reads a request body of at most {@link MAX_BODY_BYTES} and parses it as JSON.
 * An empty body reads as `undefined`; anything that is not JSON, or nests
 * deeper than {@link MAX_JSON_DEPTH} levels, is a 400.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req, MAX_BODY_BYTES);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // Not V8's message: it quotes the text around the error, which could be the secret being written.
    throw HttpError.invalid(
      `the request body is not valid JSON (${describeJsonSyntaxError(text, 'the body').replace(/^invalid JSON:? ?/, '')})`,
    );
  }
  if (exceedsJsonDepth(body, MAX_JSON_DEPTH)) {
    throw HttpError.invalid(`the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  }
  return body;
}

/**
 * Reads a whole request body of at most `limit` bytes.
 *
 * @throws HttpError 413 past `limit`, leaving the request open (not destroyed, which would reset the
 *   connection before the client reads the answer): {@link sendError} drains it after answering.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(payloadTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      req.pause();
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) settle(() => reject(payloadTooLarge(limit)));
      else chunks.push(chunk);
    };
    const onEnd = (): void => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = (error: Error): void => settle(() => reject(error));
    // The client hung up mid-body: reported as the stream's own abort error is.
    const onClose = (): void =>
      settle(() => reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' as const })));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * After a 413 answer to a request whose body is still arriving: reads and
 * drops at most {@link MAX_DRAIN_BYTES} of it for at most
 * {@link DRAIN_TIMEOUT_MS}, then cuts the connection. Closing at once would
 * reset it while the client still uploads, and a client that reads only
 * after writing would see `ECONNRESET` instead of the answer.
 */
export function drainRefusedBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let drained = 0;
  const cut = (): void => {
    clearTimeout(timer);
    req.socket.destroy();
  };
  const timer = setTimeout(cut, DRAIN_TIMEOUT_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAIN_BYTES) cut();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

function payloadTooLarge(limit: number): HttpError {
  return new HttpError(413, 'payload_too_large', `request bodies are limited to ${limit} bytes`);
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJsonPayload(res, status, Buffer.from(JSON.stringify(body)), headers);
}

/** Writes a JSON answer already serialised. */
export function sendJsonPayload(
  res: ServerResponse,
  status: number,
  payload: Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(payload.length),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(payload);
}

/** Writes the protocol's error body for `error` (PROTOCOL §3). */
export function sendError(res: ServerResponse, error: HttpError): void {
  sendJson(res, error.status, { error: error.protocolCode, message: error.message, ...error.extra }, error.headers);
  // A body we refused to read may still be arriving: read it (bounded) so the client can read the answer.
  if (error.status === 413) drainRefusedBody(res.req);
}

/**
 * The host name of a `Host` header as names are compared: without the port,
 * lower-cased, and without one trailing dot (`Shop.Svc.Test.:443` →
 * `shop.svc.test`), since DNS resolves `a.b.` and `a.b` alike.
 */
export function hostName(host: string): string {
  const name = host.trim().replace(/:\d+$/, '').toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** The first DNS label of a `Host` header (`shop.localhost:4400` → `shop`), lower-cased. */
export function slugFromHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) return ''; // an IPv6 literal names no service
  const colon = name.lastIndexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  const dot = name.indexOf('.');
  return dot === -1 ? name : name.slice(0, dot);
}

/** Decodes one percent-encoded path segment; a malformed escape is a 400. */
export function decodeSegment(segment: string, what: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw HttpError.invalid(`the ${what} in the path is not valid percent-encoding`);
  }
}

/** Whether an `If-None-Match` header value matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = strip(etag);
  return header.split(',').some((part) => {
    const tag = part.trim();
    return tag === '*' || strip(tag) === wanted;
  });
}
