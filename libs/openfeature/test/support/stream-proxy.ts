import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  lastRequest: string;
}

/**
 * A TCP proxy on loopback in front of the local server: records every
 * request line (to count `evaluate-ab` calls) and can cut the live stream
 * (open stream connections reset, new ones refused) to force the client's
 * fallback to polling.
 */
export class StreamProxy {
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #streamsCut = false;
  port = 0;
  /** Request lines seen, in order (`POST /v1/flags/evaluate-ab HTTP/1.1`). */
  readonly requests: string[] = [];

  private constructor(readonly targetPort: number) {
    this.#server = createServer((client) => this.#accept(client));
  }

  static async start(targetPort: number): Promise<StreamProxy> {
    const proxy = new StreamProxy(targetPort);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  /** `http://<slug>.localhost:<proxy port>`. */
  baseUrl(slug: string): string {
    return `http://${slug}.localhost:${this.port}`;
  }

  /** How many requests went to `path` (e.g. `/v1/flags/evaluate-ab`). */
  count(path: string): number {
    return this.requests.filter((line) => line.split(' ')[1] === path).length;
  }

  /** Cuts (true) or heals (false) the stream: while cut, stream connections are reset. */
  cutStreams(cut: boolean): void {
    this.#streamsCut = cut;
    if (!cut) return;
    for (const pair of this.#pairs) if (isStream(pair.lastRequest)) this.#reset(pair);
  }

  async close(): Promise<void> {
    for (const pair of this.#pairs) this.#reset(pair);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #reset(pair: Pair): void {
    pair.client.resetAndDestroy();
    pair.upstream.destroy();
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
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
    upstream.connect(this.targetPort, '127.0.0.1');
    client.on('data', (chunk: Buffer) => {
      const line = /^(GET|POST|PUT|DELETE|PATCH|HEAD) \S+ HTTP\/1\.1/.exec(chunk.toString('latin1'))?.[0];
      if (line !== undefined) {
        pair.lastRequest = line;
        this.requests.push(line);
        if (this.#streamsCut && isStream(line)) return this.#reset(pair);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  }
}

function isStream(requestLine: string): boolean {
  return requestLine.split(' ')[1]?.startsWith('/v1/stream') === true;
}
