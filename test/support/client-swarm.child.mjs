// A swarm of real `VaneClient`s in a process of its own, as one app server's worth of streams: the
// rolling-restart spec runs a few of these so that thousands of clients do not share one event loop with
// the test. It reads every client's values all along (a read that throws is an error raised to the app)
// and answers the parent over IPC: `{ type: 'report' }` → `{ type: 'report', ... }`, `{ type: 'close' }`
// closes every client and exits. Prints nothing; argv[2] is `{ baseUrl, apiKey, count, batch }`.
import { VaneClient } from '@vane/client';

const { baseUrl, apiKey, count, batch } = JSON.parse(process.argv[2]);
const clients = [];
const tally = { errors: [], warnings: 0, warningSamples: [], readErrors: 0, disconnects: 0, pollingSeen: 0 };
const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => {
    tally.warnings++;
    if (tally.warningSamples.length < 5) tally.warningSamples.push(String(message));
  },
  error: (message) => {
    if (tally.errors.length < 20) tally.errors.push(String(message));
  },
};

let reading;
const report = () => {
  const revisions = {};
  let connected = 0;
  let polling = 0;
  for (const client of clients) {
    const revision = client.view().revision;
    revisions[revision] = (revisions[revision] ?? 0) + 1;
    if (client.connected) connected++;
    if (client.status.mode === 'polling') polling++;
  }
  return { type: 'report', clients: clients.length, connected, polling, revisions, ...tally };
};

process.on('message', async (message) => {
  if (message.type === 'report') process.send(report());
  else if (message.type === 'close') {
    clearInterval(reading);
    await Promise.all(clients.map((client) => client.close()));
    process.send({ type: 'closed' }, () => process.exit(0));
  }
});

try {
  // In batches: a thousand initial syncs at once would only measure the machine.
  while (clients.length < count) {
    const made = await Promise.all(
      Array.from({ length: Math.min(batch, count - clients.length) }, () =>
        VaneClient.create({ baseUrl, apiKey, logger }),
      ),
    );
    for (const client of made) {
      client.onStatusChange((status) => {
        if (!status.connected) tally.disconnects++;
        if (status.mode === 'polling') tally.pollingSeen++;
      });
    }
    clients.push(...made);
  }
  reading = setInterval(() => {
    for (const client of clients) {
      try {
        client.config('db.host');
      } catch {
        tally.readErrors++;
      }
    }
  }, 500);
  process.send({ type: 'ready' });
} catch (error) {
  process.send({ type: 'failed', message: String(error?.stack ?? error) });
}
