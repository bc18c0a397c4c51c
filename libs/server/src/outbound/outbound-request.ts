/**
 * The server's own outbound requests, one way for all: checked by the
 * operator's {@link OutboundPolicy} before and at connection, never
 * following a redirect, bounded in time and in the size of the answer.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OutboundAnswer, OutboundFetch, OutboundRequest } from '../domain/outbound-fetch.js';
import type { OutboundPolicy } from './outbound-policy.js';

/** The {@link OutboundFetch} the server's verifiers send through: every request checked by `policy`. */
export class PolicedOutboundFetch implements OutboundFetch {
  /** @param policy - where the server may send requests (`--allow-outbound`). */
  constructor(readonly policy: OutboundPolicy) {}

  send(url: URL, request: OutboundRequest): Promise<OutboundAnswer> {
    return sendOutbound(this.policy, url, request);
  }
}

/**
 * Sends `request` to `url` if `policy` allows it.
 *
 * @returns the answer; rejects with {@link OutboundRefusedError} when the policy refuses the URL or the address
 *   its host resolves to, and with a network error (its `code`: `ETIMEDOUT`, `ETOOBIG`, `ECONNREFUSED`, …) otherwise.
 */
export function sendOutbound(policy: OutboundPolicy, url: URL, request: OutboundRequest): Promise<OutboundAnswer> {
  try {
    policy.checkUrl(url);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: request.method,
        headers:
          request.body === undefined ? request.headers : { ...request.headers, 'content-length': request.body.length },
        timeout: request.timeoutMs,
        // The connection goes to the address this lookup checked; a fresh connection each time, no agent to reuse one.
        lookup: policy.lookupFor(url),
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) {
            req.destroy(Object.assign(new Error(`the answer is over ${request.maxBytes} bytes`), { code: 'ETOOBIG' }));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    // `timeout` is idleness; this bounds the whole exchange.
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
      request.timeoutMs,
    );
    timer.unref();
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(Object.assign(new Error('the connection went idle'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(request.body);
  });
}
