// A raw reader of a Vane service's stream, in a process of its own (forked by flip-to-dom.bench.ts): the
// bench's own process is busy driving chromium, and a receipt time taken there would measure that. It
// sends `{ open: true }` once the stream answers, then, for each patch, when its bytes arrived (ms since
// the epoch, performance.timeOrigin + performance.now(): comparable with the bench's and the page's).
// Arguments: <port> <slug> <public key>.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

const [port, slug, apiKey] = process.argv.slice(2);
const req = request(
  {
    host: '127.0.0.1',
    port: Number(port),
    path: '/v1/stream',
    headers: { host: `${slug}.localhost:${port}`, 'x-service-api-key': apiKey, accept: 'text/event-stream' },
  },
  (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const at = performance.timeOrigin + performance.now();
      const patches = chunk.match(/^event: patch$/gm)?.length ?? 0;
      for (let i = 0; i < patches; i++) process.send({ patchAt: at });
    });
    process.send({ open: res.statusCode });
  },
);
req.on('error', (err) => {
  console.error(`raw stream reader: ${err.message}`);
  process.exit(1);
});
req.end();
process.on('disconnect', () => process.exit(0));
