#!/usr/bin/env node
// Serves the production build (dist/, from `npm run build -w @vane/example-vite-react`) on loopback,
// with the Vane settings the page reads written into index.html's <meta> tags at start: one build runs
// against any server and port. A static host would bake them in at build time instead
// (`import.meta.env.VITE_VANE_BASE_URL`).
//
// Environment: VANE_BASE_URL (http://web.localhost:4400, the demo seed's frontend service),
// VANE_PUBLIC_KEY (svp_web_local_public), PORT (5173; 0 picks a free one), HOST (127.0.0.1).
// Prints `vite-react example listening on http://<host>:<port>` once it accepts connections.
// SIGTERM or SIGINT: stops accepting connections, closes idle ones (the rest after a second), exits 0.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('./dist/', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
};

/** `value` safe inside a double-quoted HTML attribute. */
function attribute(value) {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

const settings = {
  'vane-base-url': process.env.VANE_BASE_URL || 'http://web.localhost:4400',
  'vane-public-key': process.env.VANE_PUBLIC_KEY || 'svp_web_local_public',
};
let indexHtml = readFileSync(join(DIST, 'index.html'), 'utf8');
for (const [name, value] of Object.entries(settings)) {
  const tag = new RegExp(`<meta name="${name}" content=""\\s*/?>`);
  if (!tag.test(indexHtml)) throw new Error(`dist/index.html has no empty <meta name="${name}">: rebuild the app`);
  indexHtml = indexHtml.replace(tag, `<meta name="${name}" content="${attribute(value)}" />`);
}

const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
  const file = join(DIST, path);
  const isAsset = file.startsWith(DIST + 'assets' + sep) && statSync(file, { throwIfNoEntry: false })?.isFile();
  if (isAsset) {
    // Vite names assets by their content hash: they never change under a name.
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'public, max-age=31536000, immutable',
    });
    res.end(readFileSync(file));
    return;
  }
  // Every other path is the single page (its settings change with the server it was started for).
  res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-cache' });
  res.end(indexHtml);
});

const host = process.env.HOST || '127.0.0.1';
server.listen(Number(process.env.PORT ?? 5173), host, () => {
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      console.log(`${signal}: closing`);
      server.close(() => console.log('vite-react example stopped'));
      server.closeIdleConnections();
      // A browser may hold a socket open on which it has sent nothing yet (a preconnect): not idle to
      // Node, it would hold the close until its timeout. Requests in flight get a moment to finish.
      setTimeout(() => server.closeAllConnections(), 1000).unref();
    });
  }
  console.log(`vite-react example listening on http://${host}:${server.address().port}`);
});
