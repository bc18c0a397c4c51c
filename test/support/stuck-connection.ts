/**
 * A client that holds a connection open: what keeps an HTTP server from
 * draining on shutdown, for the tests of bounded shutdowns.
 */
import { connect, type Socket } from 'node:net';

/**
 * A connection the server cannot drain: a request whose headers promise a
 * body that never comes. The route answers without reading it, so the
 * answer proves the server holds the request; the connection then stays
 * busy (not idle) until the body arrives or the server closes it.
 *
 * @param url - the server's base URL.
 * @param path - a route that answers 200 to a GET.
 */
export async function stuckConnection(
  url: string,
  path = '/greeting',
): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined); // the server resets it: expected
  const answered = new Promise<void>((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (/^HTTP\/1\.1 200 /.test(text)) resolve();
    });
    void closed.then(() => reject(new Error(`closed before an answer: ${text}`)));
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: 1000\r\n\r\n`);
  await answered;
  return { socket, closed };
}
