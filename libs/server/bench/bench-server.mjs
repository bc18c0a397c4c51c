// What the server's benchmarks share, so each does not carry a copy: the built CLI started in a process of its
// own (ready once it prints `listening on <url>`), an admin PUT, and autocannon's secret-write request.
import { spawn } from 'node:child_process';
import { request } from 'node:http';

/**
 * Starts `cli` (a built `dist/cjs/cli.js`) as `node cli --seed <seedPath> --port <port> <args…>` (port 0 unless
 * given: a free one), the admin token,
 * the root key and the store through its environment (this build refuses a token on its command line, and a
 * store URL may hold a password); resolves once it prints `listening on <url>`. Rejects, with what it printed,
 * if it exits first or has not started within `timeoutMs` (then it is sent SIGTERM).
 * @param {string} cli
 * @param {{ seedPath: string, args?: string[], adminToken: string, rootKey?: string, store?: string, timeoutMs: number, port?: number, env?: NodeJS.ProcessEnv }} options
 *   `rootKey` and `store` are left out of the environment when not given; `env` is added to it.
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, port: number, pid: number, stop: () => Promise<void> }>}
 *   `stop` sends SIGTERM and resolves once the process has exited.
 */
export async function startServerProcess(
  cli,
  { seedPath, args = [], adminToken, rootKey, store, timeoutMs, port = 0, env = {} },
) {
  const child = spawn(process.execPath, [cli, '--seed', seedPath, '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ...env,
      VANE_ADMIN_TOKEN: adminToken,
      ...(rootKey === undefined ? {} : { VANE_ROOT_KEY: rootKey }),
      ...(store === undefined ? {} : { VANE_STORE: store }),
    },
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the server did not start:\n${out}`));
    }, timeoutMs);
    const onData = (chunk) => {
      out += chunk;
      // A text line (`listening on http://…`) or a JSON record (`"msg":"… listening on http://…"`).
      const match = /listening on (http[^\s"]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        // What it prints later is drained, not kept.
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}):\n${out}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { child, port: Number(new URL(url).port), pid: child.pid, stop };
}

/**
 * PUTs `body` as JSON to `path` on the server at 127.0.0.1:`port`, with `token` as the admin bearer token, over
 * `agent` (a keep-alive one, so that a run of writes measures the writes rather than new connections).
 * @param {{ port: number, token: string, agent: import('node:http').Agent }} server
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<number | undefined>} the answer's status code, once its body has been read.
 */
export function adminPut({ port, token, agent }, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path,
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * An autocannon request writing a secret through the service API: `PUT /v1/secrets/w.<n % 64>` with the value
 * `<valuePrefix><n>`, where n counts the writes in `counter.sent` (one counter may serve several autocannon
 * runs, so their writes together are counted).
 * @param {{ host: string, apiKey: string, valuePrefix: string, counter: { sent: number } }} options
 *   `host` is the Host header naming the service (`bench.localhost:<port>`).
 */
export function secretWriteRequest({ host, apiKey, valuePrefix, counter }) {
  return {
    method: 'PUT',
    setupRequest(request) {
      counter.sent += 1;
      return {
        ...request,
        path: `/v1/secrets/w.${counter.sent % 64}`,
        headers: { host, 'x-service-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ value: `${valuePrefix}${counter.sent}` }),
      };
    },
  };
}
