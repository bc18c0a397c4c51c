import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeJsonSyntaxError } from '../json/json-syntax-error.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json/json-depth.js';
import { HttpError } from './http-error.js';

/** Request bodies larger than this answer 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a request body of at most {@link MAX_BODY_BYTES} and parses it as JSON.
 * An empty body reads as `undefined`; anything that is not JSON, or nests
 * deeper than {@link MAX_JSON_DEPTH} levels, is a 400.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw payloadTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw payloadTooLarge();
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(chunks, size).toString('utf8');
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

function payloadTooLarge(): HttpError {
  return new HttpError(413, 'payload_too_large', `request bodies are limited to ${MAX_BODY_BYTES} bytes`);
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
  const headers: Record<string, string> = { ...error.headers };
  // A body we refused to read may still be arriving: close rather than desynchronise the connection.
  if (error.status === 413) headers['connection'] = 'close';
  sendJson(res, error.status, { error: error.protocolCode, message: error.message, ...error.extra }, headers);
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
