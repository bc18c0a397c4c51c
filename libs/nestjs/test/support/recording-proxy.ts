import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the proxy forwarded. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

/** A transparent HTTP proxy in front of the local server that records every request (to count calls). */
export interface RecordingProxy {
  /** The base URL to give the client: `http://<slug>.localhost:<proxy port>`. */
  baseUrl(slug: string): string;
  /** Requests forwarded so far. */
  readonly requests: RecordedRequest[];
  /** Requests to a path, e.g. `/v1/flags/evaluate-ab`. */
  count(path: string): number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 port 0 forwarding to `targetPort`, keeping the `Host` header (the slug). */
export async function startRecordingProxy(targetPort: number): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0]!,
        body: body.toString('utf8'),
      });
      const upstream = request(
        { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: (slug) => `http://${slug}.localhost:${port}`,
    requests,
    count: (path) => requests.filter((r) => r.path === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
