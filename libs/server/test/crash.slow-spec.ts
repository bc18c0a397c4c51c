import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createParser } from 'eventsource-parser';
import { PROCESS_WAIT_MS } from '../src/testing/index.js';

// The CLI as users run it, killed with SIGKILL while admin writes are in flight, then restarted on the same
// state file: every acknowledged write must be there, revisions only grow, and a client that reconnects with
// its last Last-Event-ID converges on the server's data.
const CLI = resolve(__dirname, '../dist/cjs/cli.js');
const TOKEN = 'crash-test-admin-token';
const KEY = 'svs_shop_crash_secret';
const ROUNDS = 20;
const WRITERS = 8;
// Starting the CLI on a loaded 2-core machine takes seconds.
const WAIT_MS = PROCESS_WAIT_MS;

interface Running {
  child: ChildProcessWithoutNullStreams;
  port: number;
  exited: Promise<void>;
}

async function start(dir: string): Promise<Running> {
  const child = spawn(
    process.execPath,
    [CLI, '--seed', join(dir, 'seed.json'), '--state', join(dir, 'state.json'), '--port', '0'],
    {
      env: { ...process.env, VANE_ADMIN_TOKEN: TOKEN },
    },
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((done, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${output}`)), WAIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        done(Number(match[1]));
      }
    });
    child.once('exit', () => reject(new Error(`the server exited: ${output}`)));
  });
  return { child, port, exited };
}

function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  return new Promise((done, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, setHost: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, json: text === '' ? undefined : JSON.parse(text) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Writes `w<n>.value` = 1, 2, 3, … in a row until the server stops answering; remembers what was acknowledged. */
async function writer(
  agent: Agent,
  port: number,
  n: number,
  acked: Map<string, number>,
  revisions: number[],
): Promise<void> {
  const key = `w${n}.value`;
  for (let value = (acked.get(key) ?? 0) + 1; ; value++) {
    let answer;
    try {
      answer = await send(
        agent,
        port,
        'PUT',
        `/admin/v1/services/shop/configs/${key}`,
        { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        { value },
      );
    } catch {
      return; // killed
    }
    if (answer.status !== 200) throw new Error(`write answered ${answer.status}`);
    acked.set(key, value);
    revisions.push((answer.json as { revision: number }).revision);
  }
}

/** A minimal protocol client: applies patches in order, syncs on `resync` or a gap (PROTOCOL §6). */
class Follower {
  revision = 0;
  configs = new Map<string, unknown>();
  private req: ClientRequest | undefined;
  private listeners: Array<() => void> = [];

  connect(agent: Agent, port: number): void {
    const headers: Record<string, string> = { host: `shop.localhost:${port}`, 'x-service-api-key': KEY };
    if (this.revision > 0) headers['last-event-id'] = String(this.revision);
    let chain = Promise.resolve();
    this.req = request({ host: '127.0.0.1', port, path: '/v1/stream', setHost: false, headers }, (res) => {
      res.setEncoding('utf8');
      const parser = createParser({
        onEvent: (event) => {
          // One event after the other: a sync must finish before the next patch is judged.
          chain = chain.then(() => this.onEvent(agent, port, event.event ?? '', event.data)).catch(() => undefined);
        },
      });
      res.on('data', (text: string) => parser.feed(text));
      res.on('error', () => undefined);
    });
    this.req.on('error', () => undefined);
    this.req.end();
  }

  disconnect(): void {
    this.req?.destroy();
  }

  /** Resolves once the follower is at `revision`. */
  async reach(revision: number): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (this.revision !== revision) {
      if (Date.now() > deadline) throw new Error(`the client stayed at ${this.revision}, not ${revision}`);
      await new Promise<void>((done) => {
        const timer = setTimeout(done, 100);
        this.listeners.push(() => (clearTimeout(timer), done()));
      });
    }
  }

  private async onEvent(agent: Agent, port: number, type: string, data: string): Promise<void> {
    const body = JSON.parse(data) as { revision: number; base?: number; configs?: Record<string, unknown> };
    if (type === 'resync' && body.revision === this.revision) return;
    if (type === 'patch' && body.base === this.revision) {
      for (const [key, value] of Object.entries(body.configs ?? {})) this.configs.set(key, value);
      this.revision = body.revision;
    } else {
      const answer = await send(agent, port, 'GET', '/v1/sync', {
        host: `shop.localhost:${port}`,
        'x-service-api-key': KEY,
      });
      const snapshot = answer.json as { revision: number; configs: Record<string, unknown> };
      this.configs = new Map(Object.entries(snapshot.configs));
      this.revision = snapshot.revision;
    }
    for (const listener of this.listeners.splice(0)) listener();
  }
}

describe('vane-local-server killed with SIGKILL under concurrent admin writes', () => {
  let dir: string;
  let running: Running | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-crash-'));
    writeFileSync(
      join(dir, 'seed.json'),
      JSON.stringify({ services: { shop: { kind: 'backend', keys: [KEY], configs: { 'seed.value': 0 } } } }),
    );
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
    await running?.exited;
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`loses no acknowledged write, never moves a revision back, and lets a client converge (${ROUNDS} rounds)`, async () => {
    const acked = new Map<string, number>();
    const follower = new Follower();
    let highestSeen = 0;
    for (let round = 0; round < ROUNDS; round++) {
      running = await start(dir);
      const { port } = running;
      const snapshot = (await send(agent, port, 'GET', '/v1/sync', {
        host: `shop.localhost:${port}`,
        'x-service-api-key': KEY,
      })) as { status: number; json: { revision: number; configs: Record<string, number> } };
      expect(snapshot.status).toBe(200);
      // Every acknowledged write is there (a write in flight at the kill may have landed too: never less).
      for (const [key, value] of acked) expect([key, snapshot.json.configs[key]! >= value]).toEqual([key, true]);
      // Revisions only grow: past everything acknowledged or streamed before the crash.
      expect(snapshot.json.revision).toBeGreaterThan(Math.max(highestSeen, follower.revision));
      highestSeen = snapshot.json.revision;

      follower.connect(agent, port);
      await follower.reach(snapshot.json.revision);
      expect(Object.fromEntries(follower.configs)).toEqual(snapshot.json.configs);

      const revisions: number[] = [];
      const writers = Array.from({ length: WRITERS }, (_, n) => writer(agent, port, n, acked, revisions));
      // Kill at a random moment once some writes have been acknowledged.
      await new Promise((done) => setTimeout(done, 20 + Math.random() * 120));
      running.child.kill('SIGKILL');
      await running.exited;
      await Promise.all(writers);
      follower.disconnect();
      highestSeen = Math.max(highestSeen, ...revisions);
    }
    // Crash leftovers of the state file's writes are cleaned at each start.
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(acked.size).toBe(WRITERS);
  }, 120_000);
});
