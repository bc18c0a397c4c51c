// Raw SSE readers for the propagation benches, in a process of their own (child_process.fork of this file):
// what a propagation figure measures is when each stream's bytes arrive, not the bench's own work, so a
// reader does the least a client must (a socket, a search for the value) and the writer's process parses
// nothing. Receipt times are process.hrtime.bigint(): the system's monotonic clock, the same in every process.
import { fork } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const OPEN_BATCH = 250;

/** The monotonic clock the readers stamp receipts with, in ns; compare it only with receipts. */
export const now = () => process.hrtime.bigint();

/**
 * `count` streams on one server, read in a child process. `expect(value)` resolves, once every stream has
 * received a patch holding `value` for `configKey`, with each stream's receipt time (ns, {@link now}).
 */
export class StreamReaders {
  /** Forks the reader process and opens the streams; resolves once every one has its `resync`. */
  static async start({ port, host, apiKey, count, configKey, timeoutMs }) {
    const child = fork(SELF, ['--reader'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const readers = new StreamReaders(child, timeoutMs);
    await readers.request({ type: 'open', port, host, apiKey, count, configKey }, 'opened');
    return readers;
  }

  constructor(child, timeoutMs) {
    this.child = child;
    this.timeoutMs = timeoutMs;
    this.waiting = new Map();
    child.on('message', (message) => this.waiting.get(message.key)?.(message));
    child.once('exit', (code) => {
      for (const settle of this.waiting.values()) settle({ error: `the reader process exited (${code})` });
    });
  }

  /** Every stream's receipt time (ns) of the patch holding `value`. */
  async expect(value) {
    const { times } = await this.request({ type: 'expect', value }, `value:${value}`);
    return times.map(BigInt);
  }

  /** Closes the streams and ends the reader process. */
  async close() {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'close' });
    await exited;
  }

  request(message, key) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(
          new Error(`stream readers: no answer to ${message.type} ${message.value ?? ''} in ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
      this.waiting.set(key, (answer) => {
        clearTimeout(timer);
        this.waiting.delete(key);
        if (answer.error) reject(new Error(`stream readers: ${answer.error}`));
        else resolve(answer);
      });
      this.child.send(message);
    });
  }
}

/** The child's side: opens the streams, stamps each patch's receipt, answers `expect` once all have it. */
function runReader() {
  const sockets = [];
  const received = new Map();
  const expected = new Set();
  let count = 0;
  let marker = '';

  const report = (value) => {
    const times = received.get(value);
    if (!expected.has(value) || times === undefined || times.length < count) return;
    expected.delete(value);
    received.delete(value);
    process.send({ key: `value:${value}`, times: times.map(String) });
  };

  const open = ({ port, host, apiKey }) =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, noDelay: true });
      sockets.push(socket);
      let ready = false;
      let pending = '';
      socket.setEncoding('latin1');
      socket.on('connect', () =>
        socket.write(`GET /v1/stream HTTP/1.1\r\nhost: ${host}\r\nx-service-api-key: ${apiKey}\r\n\r\n`),
      );
      socket.on('error', reject);
      socket.on('data', (text) => {
        const at = now();
        pending += text;
        if (!ready) {
          if (pending.length < 12) return;
          if (!pending.startsWith('HTTP/1.1 200'))
            return reject(new Error(`a stream was refused: ${pending.split('\r\n')[0]}`));
          if (!pending.includes('event: resync')) return;
          ready = true;
          pending = '';
          return resolve();
        }
        // A patch may arrive split across reads: keep what follows the last complete value.
        for (;;) {
          const start = pending.indexOf(marker);
          if (start === -1) {
            pending = pending.slice(-marker.length);
            return;
          }
          const end = pending.indexOf('"', start + marker.length);
          if (end === -1) {
            pending = pending.slice(start);
            return;
          }
          const value = pending.slice(start + marker.length, end);
          pending = pending.slice(end);
          let times = received.get(value);
          if (!times) received.set(value, (times = []));
          times.push(at);
          report(value);
        }
      });
    });

  process.on('message', async (message) => {
    try {
      if (message.type === 'open') {
        count = message.count;
        marker = `${JSON.stringify(message.configKey)}:"`;
        for (let opened = 0; opened < count; opened += OPEN_BATCH) {
          await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, count - opened) }, () => open(message)));
        }
        process.send({ key: 'opened' });
      } else if (message.type === 'expect') {
        expected.add(message.value);
        report(message.value);
      } else if (message.type === 'close') {
        for (const socket of sockets) socket.destroy();
        process.disconnect();
      }
    } catch (error) {
      process.send({ key: message.type === 'open' ? 'opened' : `value:${message.value}`, error: String(error) });
    }
  });
}

if (process.argv[1] === SELF && process.argv.includes('--reader')) runReader();
