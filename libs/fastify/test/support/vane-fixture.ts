import { Writable } from 'node:stream';
import type { VaneLogger } from '@vane/client';
import type { VaneFastifyClientOptions } from '@vane/fastify';
import { startVaneServer, type VaneServer } from '@vane/server';
import { CountingDispatcher } from '../../../express/test/support/counting-dispatcher.js';
import { adapterSeed } from '@vane/test-harness';

/** A local server on the Express tests' seed (services `shop` and `web`), and a dispatcher counting the client's requests. */
export interface ServerFixture {
  readonly server: VaneServer;
  readonly http: CountingDispatcher;
  /** Plugin options for the `shop` service through the counting dispatcher, `extra` merged over them. */
  options(extra?: Partial<VaneFastifyClientOptions>): VaneFastifyClientOptions;
  /** Closes the dispatcher and the server (close the apps first). */
  close(): Promise<void>;
}

/** Starts a local server fixture. */
export async function startServer(): Promise<ServerFixture> {
  const server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  const http = new CountingDispatcher();
  return {
    server,
    http,
    options: (extra = {}) => ({
      baseUrl: server.baseUrl('shop'),
      apiKey: server.secretKey('shop'),
      dispatcher: http.dispatcher,
      ...extra,
    }),
    close: async () => {
      await http.close();
      await server.close();
    },
  };
}

/** A `VaneLogger` that keeps its lines (`warn …`, `error …`). */
export function keptLogger(): VaneLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
  };
}

/** A pino destination that keeps what Fastify's logger writes: `logger: { level, stream }`. */
export function logStream(): { stream: Writable; text(): string; entries(): Array<{ level: number; msg: string }> } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  return {
    stream,
    text: () => text,
    entries: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { level: number; msg: string }),
  };
}
