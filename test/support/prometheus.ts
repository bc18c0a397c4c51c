/**
 * A real Prometheus for the end-to-end tests: on 127.0.0.1 with a free port,
 * its own temporary config and data directory, a short scrape interval;
 * stopped (and its directory removed) by `stop()`. Queried through its HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { get } from './http.js';

const INSTALL_HINT =
  'install it with `sudo apt-get install -y prometheus` (Debian/Ubuntu) or `brew install prometheus` (macOS)';

/** Absolute path of `prometheus` on PATH (or /usr/bin/prometheus), or undefined. */
export function findPrometheus(): string | undefined {
  return findBinary('prometheus');
}

/** Absolute path of `promtool` (shipped with `prometheus`) on PATH (or /usr/bin), or undefined. */
export function findPromtool(): string | undefined {
  return findBinary('promtool');
}

function findBinary(name: string): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/**
 * `describe` for specs that need a real Prometheus. Outside CI, without
 * `prometheus`, the block is skipped with one line saying how to install it;
 * in CI (`CI=true`) it runs and fails, so CI never silently passes without it.
 */
export function describeWithPrometheus(name: string, body: () => void): void {
  if (findPrometheus() !== undefined || process.env['CI'] === 'true') {
    describe(name, body);
    return;
  }
  console.warn(`prometheus is not installed: skipping "${name}"; ${INSTALL_HINT}`);
  describe.skip(name, body);
}

/** One sample of an instant query: the series' labels and its value. */
export interface PromSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A running Prometheus. */
export interface TestPrometheus {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** An instant PromQL query through `/api/v1/query`. */
  query(promql: string): Promise<PromSample[]>;
  /** Polls `promql` until `accept` holds for its samples, for at most `timeoutMs`; returns them. */
  until(
    promql: string,
    accept: (samples: PromSample[]) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<PromSample[]>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * Starts Prometheus scraping `targets` (`host:port`, path `/metrics`) every
 * `scrapeIntervalS` seconds (rules evaluated as often), with `ruleFiles`
 * loaded, and waits until it answers `/-/ready`.
 */
export async function startPrometheus(
  targets: readonly string[],
  options: { scrapeIntervalS?: number; ruleFiles?: readonly string[] } = {},
): Promise<TestPrometheus> {
  const scrapeIntervalS = options.scrapeIntervalS ?? 1;
  const binary = findPrometheus();
  if (binary === undefined) throw new Error(`prometheus is not installed; ${INSTALL_HINT}`);
  const dir = await mkdtemp(join(tmpdir(), 'vane-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  await writeFile(
    config,
    [
      'global:',
      `  scrape_interval: ${scrapeIntervalS}s`,
      `  scrape_timeout: ${scrapeIntervalS}s`,
      `  evaluation_interval: ${scrapeIntervalS}s`,
      ...(options.ruleFiles?.length ? ['rule_files:', ...options.ruleFiles.map((f) => `  - '${f}'`)] : []),
      'scrape_configs:',
      '  - job_name: vane-sample',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await get(`${url}/-/ready`).catch(() => undefined);
    if (ready?.status === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready within 20 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const query = async (promql: string): Promise<PromSample[]> => {
    const answer = await get(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    if (answer.status !== 200) throw new Error(`query ${promql}: ${answer.status} ${answer.text}`);
    const result = (answer.body as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } })
      .data.result;
    return result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  return {
    url,
    query,
    async until(promql, accept, what, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      let last: PromSample[] = [];
      while (Date.now() <= end) {
        last = await query(promql);
        if (accept(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${promql}: ${JSON.stringify(last)})`);
    },
    stop,
  };
}
