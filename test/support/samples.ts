/**
 * The built sample apps as real processes, as a user runs them
 * (`npm test` builds first, so `sample-app/dist` and `sample-app/express/dist` exist).
 */
import { join, resolve } from 'node:path';
import type { VaneServer } from '@vane/server';
import { adminRequest, type AdminEndpoint } from '@vane/server/testing';
import { spawnNode, type Proc } from './process.js';

/** The repository's root. */
export const ROOT = resolve(__dirname, '../..');
/** The demo seed `npm start` runs. */
export const DEMO_SEED = join(ROOT, 'libs/server/seeds/demo.seed.json');

/** The entry point of each sample, built. */
export const SAMPLE_MAIN = {
  nest: 'sample-app/dist/main.js',
  express: 'sample-app/express/dist/main.js',
} as const;

/** A sample app running as a child process. */
export interface RunningSample {
  readonly proc: Proc;
  /** `http://127.0.0.1:<port>`, as the app printed it. */
  readonly url: string;
}

/** A minimal environment for a child: no VANE_* or PORT leaking in from the test runner. */
export function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '' };
  for (const name of ['HOME', 'TMPDIR', 'SYSTEMROOT'])
    if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/**
 * Starts a sample against `server`'s `shop` service on a free port, and waits for the URL it prints.
 * `server` is a local server, or any place that serves `shop` (a fleet's load balancer).
 */
export async function startSample(
  kind: keyof typeof SAMPLE_MAIN,
  server: Pick<VaneServer, 'baseUrl' | 'secretKey'>,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningSample> {
  const proc = spawnNode([SAMPLE_MAIN[kind]], {
    cwd: ROOT,
    env: {
      ...baseEnv(),
      VANE_BASE_URL: server.baseUrl('shop'),
      VANE_API_KEY: server.secretKey('shop'),
      PORT: '0',
      ...env,
    },
  });
  const [, url] = await proc.nextLine(new RegExp(`${kind} sample listening on (http://\\S+)`));
  return { proc, url: url! };
}

/**
 * Makes a change through the admin API and waits until the sample app has
 * logged receiving it (`vane: <kind> <key> changed`): the samples print one
 * such line per change event.
 */
export async function changeAndWait(
  server: AdminEndpoint,
  app: RunningSample,
  kind: 'flag' | 'config' | 'secret',
  key: string,
  body: unknown,
): Promise<void> {
  const received = app.proc.nextLine(new RegExp(`vane: ${kind} ${key.replace(/\./g, '\\.')} changed`));
  await adminRequest(server, 'PUT', `services/shop/${kind}s/${key}`, body);
  await received;
}
