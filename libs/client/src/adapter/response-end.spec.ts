import { EventEmitter, once } from 'node:events';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { whenResponseEnds } from './response-end.js';

/** A real server on loopback whose handler is set per test. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** GET `path`, body read; `agent` for keep-alive. */
function get(port: number, path: string, agent?: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('whenResponseEnds', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await close(server);
    server = undefined;
  });

  it('calls back once, with the response, after it has been sent completely', async () => {
    const ended: ServerResponse[] = [];
    let endedOnce!: () => void;
    const endedPromise = new Promise<void>((resolve) => (endedOnce = resolve));
    let seen: ServerResponse | undefined;
    let beforeEnd: number | undefined;
    const started = await serve((_req, res) => {
      seen = res;
      whenResponseEnds(res, (r) => {
        ended.push(r);
        endedOnce();
      });
      res.write('part ');
      beforeEnd = ended.length;
      res.end('done');
    });
    server = started.server;
    expect(await get(started.port, '/')).toBe('part done');
    await endedPromise;
    expect(beforeEnd).toBe(0);
    expect(ended).toEqual([seen]);
  }, 10_000);

  it('calls back when the client goes away before the response is sent', async () => {
    let ended!: () => void;
    const endedPromise = new Promise<void>((resolve) => (ended = resolve));
    const started = await serve((_req, res) => {
      whenResponseEnds(res, () => ended());
      res.write('never finished');
    });
    server = started.server;
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port: started.port, path: '/' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.end();
    });
    await endedPromise;
  }, 10_000);

  it('one connection, many requests (keep-alive): each called back once, one listener on the connection', async () => {
    const ended: string[] = [];
    const closeListeners: number[] = [];
    const started = await serve((req, res) => {
      whenResponseEnds(res, () => ended.push(req.url!));
      closeListeners.push(res.socket!.listenerCount('close'));
      res.end(req.url);
    });
    server = started.server;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const path of ['/a', '/b', '/c']) expect(await get(started.port, path, agent)).toBe(path);
    } finally {
      agent.destroy();
    }
    expect(ended).toEqual(['/a', '/b', '/c']);
    // The connection's listener is added for its first request only.
    expect(new Set(closeListeners).size).toBe(1);
  });

  it('pipelined requests on one connection: each called back once, in order, when sent or when the client goes away', async () => {
    const ended: string[] = [];
    let allEnded: (() => void) | undefined;
    let expected = 0;
    let firstResponse: ServerResponse | undefined;
    let secondResponse: ServerResponse | undefined;
    let lastSeen: (() => void) | undefined;
    const started = await serve((req, res) => {
      whenResponseEnds(res, () => {
        ended.push(req.url!);
        if (ended.length === expected) allEnded?.();
      });
      // The first request of each pair waits: both responses are waited on at once.
      if (firstResponse === undefined) firstResponse = res;
      else {
        secondResponse = res;
        lastSeen?.();
      }
    });
    server = started.server;
    /** Sends two pipelined GETs on a new connection; resolves once the server has seen both. */
    const pipeline = async (first: string, second: string): Promise<ReturnType<typeof connect>> => {
      firstResponse = undefined;
      const seen = new Promise<void>((resolve) => (lastSeen = resolve));
      const socket = connect(started.port, '127.0.0.1');
      socket.write(`GET ${first} HTTP/1.1\r\nHost: x\r\n\r\nGET ${second} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await seen;
      return socket;
    };
    const untilEnded = (count: number): Promise<void> => {
      expected = count;
      return new Promise<void>((resolve) => (allEnded = resolve));
    };

    // Both sent: the first, then the second (queued behind it by Node).
    const socket = await pipeline('/first', '/second');
    const sent = untilEnded(2);
    firstResponse!.end('first');
    secondResponse!.end('second');
    await sent;
    expect(ended).toEqual(['/first', '/second']);
    socket.destroy();

    // The client goes away while both wait.
    const gone = await pipeline('/stuck', '/queued');
    const closed = untilEnded(4);
    gone.destroy();
    await closed;
    expect(ended).toEqual(['/first', '/second', '/stuck', '/queued']);
  });

  it('a response already closed is called back at once', async () => {
    let calledAtOnce: boolean | undefined;
    const started = await serve((_req, res) => {
      res.on('close', () => {
        let called = false;
        whenResponseEnds(res, () => (called = true));
        calledAtOnce = called;
      });
      res.end('done');
    });
    server = started.server;
    await get(started.port, '/');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(calledAtOnce).toBe(true);
  });

  it("a response that is not Node's (HTTP/2 compat, a double): its `close`, or at once when already closed", () => {
    const open = Object.assign(new EventEmitter(), { closed: false });
    const calls: string[] = [];
    whenResponseEnds(open, () => calls.push('open'));
    expect(calls).toEqual([]);
    open.emit('close');
    open.emit('close');
    expect(calls).toEqual(['open']);
    whenResponseEnds(Object.assign(new EventEmitter(), { closed: true }), () => calls.push('closed'));
    expect(calls).toEqual(['open', 'closed']);
  });

  it('several callbacks on one response are all called; one that throws reaches neither the server nor the others', async () => {
    const ended: string[] = [];
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => void uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const started = await serve((req, res) => {
        whenResponseEnds(res, () => {
          throw new Error('a broken callback');
        });
        whenResponseEnds(res, () => ended.push(req.url!));
        res.end('ok');
      });
      server = started.server;
      expect(await get(started.port, '/x')).toBe('ok');
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    expect(ended).toEqual(['/x']);
  });
});
