#!/usr/bin/env node
// Serves the production build (.next/, from `npm run build -w @vane/example-nextjs`): what `next start`
// does, on a port the caller may leave to the system (PORT=0), with one line to wait for.
//
// Environment (read per request by the page, so one build runs against any server): VANE_BASE_URL
// (http://web.localhost:4400, the demo seed's frontend service), VANE_PUBLIC_KEY (svp_web_local_public);
// PORT (3100; 0 picks a free one), HOST (127.0.0.1).
// Prints `nextjs example listening on http://<host>:<port>` once it accepts connections.
// SIGTERM or SIGINT: stops accepting connections, closes idle ones (the rest after a second), exits 0.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

process.env.NEXT_TELEMETRY_DISABLED = '1';
const { default: next } = await import('next');

const host = process.env.HOST || '127.0.0.1';
const app = next({ dev: false, dir: fileURLToPath(new URL('.', import.meta.url)), hostname: host });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error('request failed', err);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
server.listen(Number(process.env.PORT ?? 3100), host, () => {
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      console.log(`${signal}: closing`);
      server.close(() => {
        console.log('nextjs example stopped');
        // Next keeps timers of its own (its incremental cache); the server is closed, so the process is done.
        process.exit(0);
      });
      server.closeIdleConnections();
      // A browser may hold a socket open on which it has sent nothing yet (a preconnect): not idle to
      // Node, it would hold the close until its timeout. Requests in flight get a moment to finish.
      setTimeout(() => server.closeAllConnections(), 1000).unref();
    });
  }
  console.log(`nextjs example listening on http://${host}:${server.address().port}`);
});
