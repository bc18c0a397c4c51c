// A local server in a worker thread of its own, changing values on a 1 ms timer when asked: the
// load tests measure the app's heap (the main thread's isolate), which the server's growing history
// (every secret version, every audit entry) must not pollute. Messages: `{ type: 'churn' }` starts
// the timer, `{ type: 'stop' }` stops it and answers `{ type: 'stopped', last }`, `{ type: 'close' }`
// closes the server and ends the thread. `{ type: 'applied', revision }` tells the revision the app's client
// serves: the changes pause while they are more than MAX_AHEAD revisions ahead of it, so a machine too loaded
// for the client to keep up makes fewer changes rather than a backlog no bound can wait out.
import { parentPort, workerData } from 'node:worker_threads';
import { startVaneServer } from '@vane/server';

const server = await startVaneServer({ seed: workerData.seed, port: 0 });
const { slug, fileSecret = true } = workerData;
let timer;
let rounds = 0;
let last = server.services().find((s) => s.slug === slug).revision;
let applied = last;
const MAX_AHEAD = 3_000;

parentPort.on('message', async (message) => {
  if (message.type === 'churn') {
    // Two configs and the file secret (unless `fileSecret: false`), together: a read of them that spans
    // two rounds sees a mix.
    timer = setInterval(() => {
      if (last - applied > MAX_AHEAD) return;
      rounds += 1;
      server.admin.setConfig(slug, 'db.pool.max', rounds);
      last = server.admin.setConfig(slug, 'db.host', `host-${rounds}`);
      if (fileSecret) last = server.admin.setSecret(slug, 'tls.client_pem', `pem-${rounds}`, 'file').revision;
    }, 1);
  } else if (message.type === 'applied') {
    applied = Math.max(applied, message.revision);
  } else if (message.type === 'stop') {
    clearInterval(timer);
    parentPort.postMessage({ type: 'stopped', last, rounds });
  } else if (message.type === 'close') {
    clearInterval(timer);
    await server.close();
    parentPort.close();
  }
});
parentPort.postMessage({ type: 'ready', baseUrl: server.baseUrl(slug), secretKey: server.secretKey(slug) });
