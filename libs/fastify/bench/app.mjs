// The benchmarked app, in its own process: a Fastify 5 app on the built @vane/fastify, connected to
// the local Vane server at VANE_BASE_URL (stream on), with three identical handlers returning 'ok':
// GET /open (no guard), GET /plain (config.vane: a plain flag, on) and GET /ab (config.vane: an A/B
// flag on for everyone, evaluated for the user of the x-user-id header); GET /cpu gives the process's
// CPU time so far, in microseconds. Prints {"port": n} when ready.
import Fastify from 'fastify';
import vane from '@vane/fastify';

const app = Fastify({ logger: { level: 'warn' } });
await app.register(vane, {
  baseUrl: process.env.VANE_BASE_URL,
  apiKey: process.env.VANE_API_KEY,
  abContext: (request) => {
    const userId = request.headers['x-user-id'];
    return typeof userId === 'string' ? { userId } : null;
  },
});
app.get('/open', async () => 'ok');
app.get('/plain', { config: { vane: { flags: 'bench-flag' } } }, async () => 'ok');
app.get('/ab', { config: { vane: { flags: 'bench-ab', ab: true } } }, async () => 'ok');
app.get('/cpu', async () => {
  const { user, system } = process.cpuUsage();
  return { micros: user + system };
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close());
console.log(JSON.stringify({ port: app.server.address().port }));
