import { createServer, type AddressInfo } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 now (the system picks it), for a process that
 * must be told its port before it starts: a replica that restarts on the same
 * port behind a load balancer, say. Another process may take it meanwhile;
 * callers that can retry on "address in use" should.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
