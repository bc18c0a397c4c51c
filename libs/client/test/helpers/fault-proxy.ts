import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

/** What the proxy does with a request a client sends (by request line). */
export type RequestFault = (requestLine: string) => string | 'reset' | undefined;

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Request line of the last request seen on this connection. */
  lastRequest: string;
}

/**
 * A TCP proxy on loopback that can break things on purpose: reset
 * connections, stall them, cut the next bytes in half, or answer requests
 * itself (garbage, 5xx) instead of forwarding them.
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #requestFault: RequestFault | undefined;
  #stalled = false;
  #cutNext: ((requestLine: string) => boolean) | undefined;
  port = 0;
  /** Request lines seen, in order (forwarded or answered). */
  readonly requests: string[] = [];

  private constructor(readonly targetPort: number) {
    this.#server = createServer((client) => this.#accept(client));
  }

  static async start(targetPort: number): Promise<FaultProxy> {
    const proxy = new FaultProxy(targetPort);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  /** `http://<slug>.localhost:<proxy port>`. */
  baseUrl(slug: string): string {
    return `http://${slug}.localhost:${this.port}`;
  }

  /** Answer (or reset) requests matching the rule instead of forwarding them; `undefined` heals. */
  onRequest(fault: RequestFault | undefined): void {
    this.#requestFault = fault;
  }

  /** Stops (true) or resumes (false) every byte from the server to clients. */
  stall(stalled: boolean): void {
    this.#stalled = stalled;
    for (const pair of this.#pairs) {
      if (stalled) pair.upstream.pause();
      else pair.upstream.resume();
    }
  }

  /** Forwards only the first half of the next server chunk on a connection whose last request matches, then resets it. */
  cutNextChunk(match: (requestLine: string) => boolean): void {
    this.#cutNext = match;
  }

  /** Resets every connection whose last request matches (all by default). */
  reset(match: (requestLine: string) => boolean = () => true): number {
    let n = 0;
    for (const pair of this.#pairs) {
      if (match(pair.lastRequest)) {
        n++;
        pair.client.resetAndDestroy();
        pair.upstream.destroy();
      }
    }
    return n;
  }

  get openConnections(): number {
    return this.#pairs.size;
  }

  count(path: string): number {
    return this.requests.filter((line) => line.split(' ')[1] === path).length;
  }

  #accept(client: Socket): void {
    const upstream = new Socket();
    const pair: Pair = { client, upstream, lastRequest: '' };
    this.#pairs.add(pair);
    const drop = (): void => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    upstream.connect(this.targetPort, '127.0.0.1');
    if (this.#stalled) upstream.pause();
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      const line = /^(GET|POST|PUT|DELETE|PATCH|HEAD) \S+ HTTP\/1\.1/.exec(text)?.[0];
      if (line) {
        pair.lastRequest = line;
        this.requests.push(line);
        const answer = this.#requestFault?.(line);
        if (answer === 'reset') {
          client.resetAndDestroy();
          upstream.destroy();
          return;
        }
        if (answer !== undefined) {
          client.end(answer);
          upstream.destroy();
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.#cutNext?.(pair.lastRequest)) {
        this.#cutNext = undefined;
        client.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))), () => {
          client.resetAndDestroy();
          upstream.destroy();
        });
        return;
      }
      client.write(chunk);
    });
  }

  async close(): Promise<void> {
    for (const pair of this.#pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A raw HTTP/1.1 response the proxy can answer with, as the service would (with `Vane-Protocol`). */
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
