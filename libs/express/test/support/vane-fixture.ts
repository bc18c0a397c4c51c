import { createVane, type VaneExpress, type VaneExpressOptions } from '@vane/express';
import { startVaneServer, type VaneServer } from '@vane/server';
import { CountingDispatcher } from './counting-dispatcher.js';
import { adapterSeed } from '@vane/test-harness';

/** A local server on the test seed, and a Vane on its `shop` service whose HTTP requests are counted. */
export interface VaneFixture {
  readonly server: VaneServer;
  readonly vane: VaneExpress;
  readonly http: CountingDispatcher;
  /** Closes the Vane, the dispatcher and the server. */
  close(): Promise<void>;
}

/** Starts a fixture; `options` are merged over the default Vane options. */
export async function startFixture(options: Partial<VaneExpressOptions> = {}): Promise<VaneFixture> {
  const server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  const http = new CountingDispatcher();
  let vane: VaneExpress;
  try {
    vane = await createVane({
      baseUrl: server.baseUrl('shop'),
      apiKey: server.secretKey('shop'),
      dispatcher: http.dispatcher,
      logger: { warn: () => undefined, error: () => undefined },
      ...options,
    });
  } catch (err) {
    await http.close();
    await server.close();
    throw err;
  }
  return {
    server,
    vane,
    http,
    close: async () => {
      await vane.close();
      await http.close();
      await server.close();
    },
  };
}
