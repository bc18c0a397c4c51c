/**
 * A TCP proxy on loopback between a client and the local server: it
 * records every request, and breaks things on purpose when told to.
 *
 * @packageDocumentation
 */
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

/** One request the proxy saw (forwarded or answered itself). */
export interface RecordedRequest {
  /** `GET /v1/sync HTTP/1.1`. */
  readonly line: string;
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The body, as UTF-8; filled in as it arrives (complete once the answer is in). */
  body: string;
}

/**
 * What the proxy does with a request, decided on its request line: a string
 * is sent back as the raw answer (see {@link rawResponse}), `'reset'` resets
 * the connection, `'close'` closes it without a byte of answer (a FIN, as a
 * server closing an idle kept-alive connection at the moment a request
 * reuses it does), `undefined` forwards it.
 */
export type RequestFault = (requestLine: string) => string | 'reset' | 'close' | undefined;

/** The request parser's state on one connection. */
interface Reader {
  buffer: Buffer;
  /** Bytes of body still to come (content-length); `'chunked'`, or `'trailer'` after its last chunk. */
  body: number | 'chunked' | 'trailer' | undefined;
  /** Bytes left in the current chunk of a chunked body (data and its CRLF). */
  chunkLeft: number;
  current: RecordedRequest | undefined;
  /** The body of `current` so far. */
  bodyBytes: Buffer[];
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly reader: Reader;
  /** Request line of the last request seen on this connection. */
  lastRequest: string;
  /** Bytes from the client held back (see {@link FaultProxy.holdWhere}), in order; undefined while none are. */
  held?: Buffer[];
}

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/;
/** A request head larger than this is not HTTP a Vane client sends: the connection is reset. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * A TCP proxy on `127.0.0.1` in front of a server (the local server, usually):
 * give the client `proxy.baseUrl('shop')` instead of the server's. It parses
 * each request (head and body) to record it, then forwards it unchanged,
 * unless told to fail: answer requests itself ({@link FaultProxy.onRequest}),
 * reset connections, cut the stream, stall every answer, or cut the next
 * chunk of an answer in half. {@link FaultProxy.close} leaves nothing open.
 *
 * @example
 * ```ts
 * const proxy = await FaultProxy.start(server.port);
 * const client = await VaneClient.create({ baseUrl: proxy.baseUrl('shop'), apiKey: server.secretKey('shop') });
 * proxy.onRequest((line) => (line.startsWith('GET /v1/sync') ? rawResponse(503, '{}') : undefined));
 * expect(proxy.count('/v1/sync')).toBe(1);
 * ```
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #requestFault: RequestFault | undefined;
  #streamsCut = false;
  #stalled = false;
  #stallWhere: ((requestLine: string) => boolean) | undefined;
  #holdWhere: ((requestLine: string) => boolean) | undefined;
  #cutNext: ((requestLine: string) => boolean) | undefined;
  /** The port the proxy listens on (on `127.0.0.1`). */
  port = 0;
  /** Every request seen, in order. */
  readonly requests: RecordedRequest[] = [];

  private constructor(
    /** The port requests are forwarded to, on `127.0.0.1`. */
    readonly targetPort: number,
    /** `'tcp'`: bytes are forwarded as they come, nothing parsed (a PostgreSQL connection, say). */
    readonly protocol: 'http' | 'tcp',
  ) {
    this.#server = createServer((client) => this.#accept(client));
  }

  /**
   * Starts a proxy on `127.0.0.1`, port 0, forwarding to `targetPort` (e.g.
   * `server.port`). With `{ protocol: 'tcp' }` it parses nothing (no request
   * is recorded, no request fault applies): it forwards any protocol's bytes,
   * and `reset`, `stall` and `cutNextChunk` still break its connections; the
   * "request line" they match is then the printable text of the last bytes
   * the client sent (a PostgreSQL connection's last statement, e.g.
   * `listen "vane_changes"` from postgres.js).
   */
  static async start(targetPort: number, options: { protocol?: 'http' | 'tcp' } = {}): Promise<FaultProxy> {
    const proxy = new FaultProxy(targetPort, options.protocol ?? 'http');
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', resolve);
    });
    proxy.port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  /** `http://<slug>.localhost:<proxy port>`: the base URL to give a client instead of the server's. */
  baseUrl(slug: string): string {
    return `http://${slug}.localhost:${this.port}`;
  }

  /** How many requests went to `path` (e.g. `/v1/flags/evaluate-ab`), query string ignored. */
  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  /** Connections open through the proxy. */
  get openConnections(): number {
    return this.#pairs.size;
  }

  /** Answers (or resets, or closes) the requests `fault` picks instead of forwarding them; `undefined` heals. */
  onRequest(fault: RequestFault | undefined): void {
    this.#requestFault = fault;
  }

  /**
   * Cuts (true) or heals (false) the stream: while cut, open `/v1/stream`
   * connections are reset and new ones are reset as they ask, so a client
   * falls back to polling. Other requests pass.
   */
  cutStreams(cut: boolean): void {
    this.#streamsCut = cut;
    if (cut) this.reset((line) => isStream(line));
  }

  /**
   * From now on, stops every byte from the server on a connection as soon as
   * its client sends a request (or, with `protocol: 'tcp'`, bytes) that
   * `match` picks: what was sent reaches the server, its answer never comes
   * (a server that committed and then fell silent). `stall(false)` resumes them.
   */
  stallWhere(match: (requestLine: string) => boolean): void {
    this.#stallWhere = match;
  }

  /**
   * With `protocol: 'tcp'`: from now on, holds back what a client sends once
   * it sends bytes `match` picks (those and all after them on that
   * connection): the server sees them only at `stall(false)`, late (a
   * statement delayed in the network).
   */
  holdWhere(match: (requestLine: string) => boolean): void {
    this.#holdWhere = match;
  }

  /**
   * Stops (true) or resumes (false) every byte from the server to the
   * clients; false also ends {@link stallWhere} and {@link holdWhere},
   * sending what was held.
   */
  stall(stalled: boolean): void {
    this.#stalled = stalled;
    if (!stalled) {
      this.#stallWhere = undefined;
      this.#holdWhere = undefined;
      for (const pair of this.#pairs) {
        const held = pair.held;
        pair.held = undefined;
        for (const chunk of held ?? []) pair.upstream.write(chunk);
      }
    }
    for (const pair of this.#pairs) {
      if (stalled) pair.upstream.pause();
      else pair.upstream.resume();
    }
  }

  /**
   * Forwards only the first half of the next chunk the server sends on a
   * connection whose last request matches, then resets that connection.
   */
  cutNextChunk(match: (requestLine: string) => boolean): void {
    this.#cutNext = match;
  }

  /** Resets every connection whose last request matches (all by default); returns how many. */
  reset(match: (requestLine: string) => boolean = () => true): number {
    let n = 0;
    for (const pair of this.#pairs) {
      if (!match(pair.lastRequest)) continue;
      n++;
      this.#resetPair(pair);
    }
    return n;
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    for (const pair of this.#pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #resetPair(pair: Pair): void {
    pair.client.resetAndDestroy();
    pair.upstream.destroy();
  }

  #accept(client: Socket): void {
    const upstream = new Socket();
    const pair: Pair = {
      client,
      upstream,
      reader: { buffer: Buffer.alloc(0), body: undefined, chunkLeft: 0, current: undefined, bodyBytes: [] },
      lastRequest: '',
    };
    this.#pairs.add(pair);
    const drop = (): void => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
    upstream.connect(this.targetPort, '127.0.0.1');
    if (this.#stalled) upstream.pause();
    client.on('data', (chunk: Buffer) => this.#fromClient(pair, chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (this.#cutNext?.(pair.lastRequest)) {
        this.#cutNext = undefined;
        client.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))), () => this.#resetPair(pair));
        return;
      }
      client.write(chunk);
    });
  }

  /** Reads requests off the client's bytes: each head is recorded and judged, then forwarded with its body. */
  #fromClient(pair: Pair, chunk: Buffer): void {
    if (this.protocol === 'tcp') {
      // The text of what was sent, control bytes dropped: enough to tell a LISTEN from a query.
      pair.lastRequest = chunk
        .toString('latin1')
        .replace(/[^\x20-\x7e]+/g, ' ')
        .trim();
      if (this.#stallWhere?.(pair.lastRequest)) pair.upstream.pause();
      if (pair.held === undefined && this.#holdWhere?.(pair.lastRequest)) pair.held = [];
      if (pair.held !== undefined) pair.held.push(chunk);
      else pair.upstream.write(chunk);
      return;
    }
    const r = pair.reader;
    r.buffer = r.buffer.length === 0 ? chunk : Buffer.concat([r.buffer, chunk]);
    while (r.buffer.length > 0 && !pair.client.destroyed) {
      if (r.body !== undefined) {
        const taken = this.#takeBody(r);
        if (taken.length === 0) return;
        pair.upstream.write(taken);
        continue;
      }
      const end = r.buffer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (r.buffer.length > MAX_HEAD_BYTES) this.#resetPair(pair);
        return;
      }
      const head = r.buffer.subarray(0, end + 4);
      r.buffer = r.buffer.subarray(end + 4);
      const lines = head.toString('latin1').split('\r\n');
      const line = lines[0] ?? '';
      const parsed = REQUEST_LINE.exec(line);
      if (parsed === null) {
        // Not HTTP/1.1 as a client sends it: passed through untouched from here on.
        pair.upstream.write(Buffer.concat([head, r.buffer]));
        r.buffer = Buffer.alloc(0);
        return;
      }
      const request: RecordedRequest = { line, method: parsed[1]!, path: parsed[2]!.split('?')[0]!, body: '' };
      this.requests.push(request);
      pair.lastRequest = line;
      if (this.#stallWhere?.(line)) pair.upstream.pause();
      const answer = this.#streamsCut && isStream(line) ? 'reset' : this.#requestFault?.(line);
      if (answer === 'reset') return this.#resetPair(pair);
      if (answer === 'close') {
        pair.client.destroy();
        pair.upstream.destroy();
        return;
      }
      if (answer !== undefined) {
        pair.client.end(answer);
        pair.upstream.destroy();
        return;
      }
      r.current = request;
      r.bodyBytes = [];
      r.body = bodyOf(lines);
      pair.upstream.write(head);
    }
  }

  /** Takes the bytes of the current body out of the buffer (recording them), as far as they have come. */
  #takeBody(r: Reader): Buffer {
    const out: Buffer[] = [];
    while (r.buffer.length > 0 && r.body !== undefined) {
      if (typeof r.body === 'number') {
        const n = Math.min(r.body, r.buffer.length);
        this.#record(r, r.buffer.subarray(0, n));
        out.push(this.#shift(r, n));
        r.body -= n;
        if (r.body === 0) r.body = undefined;
      } else if (r.chunkLeft > 0) {
        const n = Math.min(r.chunkLeft, r.buffer.length);
        // The last two bytes of each chunk are its CRLF, not data.
        this.#record(r, r.buffer.subarray(0, Math.max(0, Math.min(n, r.chunkLeft - 2))));
        out.push(this.#shift(r, n));
        r.chunkLeft -= n;
      } else {
        const eol = r.buffer.indexOf('\r\n');
        if (eol < 0) break;
        const text = r.buffer.subarray(0, eol).toString('latin1');
        out.push(this.#shift(r, eol + 2));
        if (r.body === 'trailer') {
          // Trailer lines until an empty one.
          if (text === '') r.body = undefined;
          continue;
        }
        const size = Number.parseInt(text, 16);
        if (Number.isFinite(size) && size > 0) r.chunkLeft = size + 2;
        else r.body = 'trailer';
      }
    }
    return Buffer.concat(out);
  }

  /** Removes and returns the first `n` bytes of the buffer. */
  #shift(r: Reader, n: number): Buffer {
    const taken = r.buffer.subarray(0, n);
    r.buffer = r.buffer.subarray(n);
    return taken;
  }

  #record(r: Reader, data: Buffer): void {
    if (r.current === undefined || data.length === 0) return;
    r.bodyBytes.push(data);
    r.current.body = Buffer.concat(r.bodyBytes).toString('utf8');
  }
}

/** How the body of a request with these head lines is framed. */
function bodyOf(lines: readonly string[]): number | 'chunked' | undefined {
  let length = 0;
  for (const header of lines.slice(1)) {
    const colon = header.indexOf(':');
    if (colon < 0) continue;
    const name = header.slice(0, colon).trim().toLowerCase();
    const value = header.slice(colon + 1).trim();
    if (name === 'transfer-encoding' && value.toLowerCase().includes('chunked')) return 'chunked';
    if (name === 'content-length') length = Number(value) || 0;
  }
  return length > 0 ? length : undefined;
}

function isStream(requestLine: string): boolean {
  return requestLine.split(' ')[1]?.startsWith('/v1/stream') === true;
}

/**
 * A raw HTTP/1.1 answer for {@link FaultProxy.onRequest}, as the service
 * would send it: the status, `Vane-Protocol: 1`, a JSON content type unless
 * `headers` says otherwise, and `connection: close`.
 */
export function rawResponse(status: number, body: string, headers: Record<string, string> = {}): string {
  const all = {
    'vane-protocol': '1',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...headers,
  };
  return `HTTP/1.1 ${status} X\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`;
}
