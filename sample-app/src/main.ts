/**
 * Runs the NestJS sample: `node sample-app/dist/main.js` after building.
 * `PORT` (default 3000; 0 picks a free port) and `HOST` (default 127.0.0.1);
 * Vane options from `VANE_BASE_URL` / `VANE_API_KEY` (see
 * `vane-options.factory.ts`). SIGTERM and Ctrl-C close the app gracefully:
 * requests in flight get `DRAIN_TIMEOUT_MS` (default 10000) to finish, then
 * the connections still open are closed; a second signal closes them at
 * once. Vane is closed (file secrets removed) and the process exits 0.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { VaneClient } from '@vane/client';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  // A failed initial sync (wrong key, wrong slug, service down) is logged with what to do, and the process exits 1.
  const app = await NestFactory.create(AppModule);
  const drainTimeoutMs = Number(process.env['DRAIN_TIMEOUT_MS'] ?? 10_000);
  let closing: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals): void => {
    const server = app.getHttpServer() as Server;
    if (closing) {
      // A second signal: stop waiting for connections, finish the cleanup (Vane removes its file secrets), exit.
      console.log(`${signal} again: closing now`);
      server.closeAllConnections();
      void app
        .get(VaneClient)
        .close()
        .finally(() => process.exit());
      return;
    }
    console.log(`${signal}: closing`);
    // Past the drain timeout, connections still open (a client holding a half-sent request) are closed.
    const drain = setTimeout(() => {
      console.log(`drain timeout (${drainTimeoutMs} ms): closing the connections still open`);
      server.closeAllConnections();
    }, drainTimeoutMs).unref();
    // Completes the observables (and the SSE streams), stops the HTTP server (idle connections at once),
    // waits for requests in flight, then closes Vane (stream, timers, file secrets).
    closing = app.close().then(
      () => console.log('nest sample stopped'),
      (err: unknown) => {
        console.error('shutdown failed', err);
        process.exitCode = 1;
      },
    );
    void closing.finally(() => clearTimeout(drain));
  };
  // Before the "listening" line: whoever reads it may signal at once.
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  const host = process.env['HOST'] || '127.0.0.1';
  await app.listen(Number(process.env['PORT'] ?? 3000), host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(`nest sample listening on http://${host}:${port}`);
}

bootstrap().catch((err: unknown) => {
  // E.g. the port is taken. Exit at once: the exit hook removes the file secrets of the Vane client already started.
  console.error(`nest sample could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
