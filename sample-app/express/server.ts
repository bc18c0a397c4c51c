/**
 * Starting and stopping the sample: create Vane (the blocking initial
 * sync), listen, and shut down in order, within a bounded drain.
 */
import type { AddressInfo } from 'node:net';
import { createVane, type VaneExpress } from '@vane/express';
import { createApp } from './app.js';
import { startTelemetry } from './telemetry.js';
import { vaneOptionsFromEnv } from './vane-options.js';

/** A running sample. */
export interface RunningSample {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly vane: VaneExpress;
  /**
   * Stops accepting connections and closes idle ones, lets requests in flight
   * finish for up to `DRAIN_TIMEOUT_MS` (default 10000), closes the
   * connections still open after that, then closes Vane. Idempotent.
   */
  close(): Promise<void>;
  /** Closes every connection now, then Vane (for a second signal). */
  closeNow(): Promise<void>;
}

/**
 * Starts the sample on `PORT` (default 3001; 0 picks a free port), with
 * Vane options from `VANE_BASE_URL` / `VANE_API_KEY`. Rejects, with nothing
 * left open, when the initial sync fails (wrong key, wrong slug, service down).
 */
export async function startSample(
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = console.log,
): Promise<RunningSample> {
  // Before Vane: the client finds the registered meter provider when it is created.
  const telemetry = await startTelemetry(env);
  // #region create
  const vane = await createVane(vaneOptionsFromEnv(env));
  vane.client.onChange((e) => log(`vane: ${e.kind} ${e.key} changed (revision ${e.revision})`));
  const app = createApp(vane);
  const server = (telemetry?.serve(app) ?? app).listen(Number(env['PORT'] ?? 3001), env['HOST'] ?? '127.0.0.1');
  // #endregion create
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once(
      'error',
      (err) =>
        void vane
          .close()
          .then(() => telemetry?.shutdown())
          .then(() => reject(err)),
    );
  });
  const { port } = server.address() as AddressInfo;
  const drainTimeoutMs = Number(env['DRAIN_TIMEOUT_MS'] ?? 10_000);
  let closing: Promise<void> | undefined;
  const drainThenClose = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // A client holding a half-sent request would otherwise keep the server, and the file secrets, for minutes.
    const drain = setTimeout(() => {
      log(`drain timeout (${drainTimeoutMs} ms): closing the connections still open`);
      server.closeAllConnections();
    }, drainTimeoutMs).unref();
    await closed;
    clearTimeout(drain);
    await vane.close();
    await telemetry?.shutdown();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    vane,
    close: () => (closing ??= drainThenClose()),
    closeNow: async () => {
      server.closeAllConnections();
      await vane.close();
      await telemetry?.shutdown();
    },
  };
}
