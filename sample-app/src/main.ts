/**
 * Runs the NestJS sample: `node sample-app/dist/main.js` after building.
 * `PORT` (default 3000; 0 picks a free port) and `HOST` (default 127.0.0.1);
 * Vane options from `VANE_BASE_URL` / `VANE_API_KEY` (see
 * `vane-options.factory.ts`). SIGTERM and Ctrl-C close the app gracefully
 * and the process exits 0.
 */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  // A failed initial sync (wrong key, wrong slug, service down) is logged with what to do, and the process exits 1.
  const app = await NestFactory.create(AppModule);
  let closing: Promise<void> | undefined;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) return;
    console.log(`${signal}: closing`);
    // Completes the observables (and the SSE streams), stops the HTTP server, then closes Vane (stream, timers, file secrets).
    closing = app.close().then(
      () => console.log('nest sample stopped'),
      (err: unknown) => {
        console.error('shutdown failed', err);
        process.exitCode = 1;
      },
    );
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
  // E.g. the port is taken. Exit at once: Vane, already started, would keep the process alive.
  console.error(`nest sample could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
