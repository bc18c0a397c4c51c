/**
 * A fleet of Vane replicas for the end-to-end tests: `vane-server` processes
 * on one PostgreSQL, each on a port fixed before it starts (so a replica
 * killed and restarted comes back where the load balancer expects it), the
 * store's URL and the admin token in the environment (never on argv), and
 * nginx in front of them. Plus what drives them the way users do: light raw
 * SSE readers through the load balancer (a thousand fit in one test process)
 * and a writer that keeps admin writes going and remembers every one that
 * was acknowledged.
 */
import { rm, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { PROCESS_WAIT_MS } from '@vane/test-harness';
import { freePort } from './free-port.js';
import { startNginx, type NginxOptions, type TestNginx } from './nginx.js';
import type { TestPostgres } from './postgres.js';
import { killLeftovers, spawnNode, type Exit, type Proc } from './process.js';
import { ROOT, baseEnv } from './samples.js';

/** The `vane-server` command, as npm links it. */
export const SERVER_BIN = join(ROOT, 'libs/server/bin/vane-server.cjs');

/** The root key every replica of a test fleet shares (through `VANE_ROOT_KEY`): 32 bytes, base64. */
export const FLEET_ROOT_KEY = Buffer.alloc(32, 7).toString('base64');

/** The admin token every replica of a test fleet is given (through `VANE_ADMIN_TOKEN`). */
export const FLEET_ADMIN_TOKEN = 'fleet-admin-token';

/** One `vane-server` process of a fleet. */
export interface Replica {
  /** `a`, `b`, `c`…: how the tests name it. */
  readonly name: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>`: the replica itself, past the load balancer. */
  readonly url: string;
  readonly adminToken: string;
  /** The running process (a new one after {@link Replica.restart}). */
  readonly proc: Proc;
  /** `kill -9`: no goodbye, no flush, no closed streams. Resolves once it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, as a platform stops a replica: it drains its streams (`goaway`) and exits. Resolves with how it exited. */
  terminate(): Promise<Exit>;
  /** Starts it again on the same port and store; resolves once it listens. */
  restart(): Promise<void>;
}

/** What a replica is started with. */
export interface ReplicaOptions {
  readonly name: string;
  /** `postgres://…` (with its password: it goes in the environment). */
  readonly store: string;
  /** A seed file: an empty database takes it once, a database with data ignores it. */
  readonly seedPath?: string;
  /** More environment (`VANE_LOG_FORMAT`, drain windows…). */
  readonly env?: NodeJS.ProcessEnv;
}

/** Starts a replica on a free port and waits until it listens. */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const port = await freePort();
  const args = [SERVER_BIN, '--port', String(port), ...(options.seedPath ? ['--seed', options.seedPath] : [])];
  const launch = async (): Promise<Proc> => {
    const proc = spawnNode(args, {
      cwd: ROOT,
      env: {
        ...baseEnv(),
        VANE_STORE: options.store,
        VANE_ADMIN_TOKEN: FLEET_ADMIN_TOKEN,
        VANE_ROOT_KEY: FLEET_ROOT_KEY,
        ...options.env,
      },
    });
    await proc.line(/listening on http:\/\/\S+/, { timeoutMs: PROCESS_WAIT_MS });
    return proc;
  };
  let proc = await launch();
  return {
    name: options.name,
    port,
    url: `http://127.0.0.1:${port}`,
    adminToken: FLEET_ADMIN_TOKEN,
    get proc() {
      return proc;
    },
    async kill9() {
      proc.child.kill('SIGKILL');
      await proc.exited;
    },
    async terminate() {
      proc.child.kill('SIGTERM');
      return await proc.exited;
    },
    async restart() {
      proc = await launch();
    },
  };
}

/** Replicas on one PostgreSQL database behind one nginx. */
export interface Fleet {
  readonly replicas: readonly Replica[];
  readonly nginx: TestNginx;
  /** `http://<slug>.localhost:<nginx port>`: a service's base URL through the load balancer. */
  baseUrl(slug: string): string;
  /** Stops nginx (the replicas are processes: `killLeftovers` stops them). */
  stop(): Promise<void>;
}

/**
 * Writes `seed` to `dir`, starts `count` replicas on `store` (the first
 * alone, so it seeds; the rest together) and nginx in front of them.
 */
export async function startFleet(options: {
  readonly store: string;
  readonly seed: unknown;
  readonly dir: string;
  readonly count?: number;
  /** More environment for every replica. */
  readonly env?: NodeJS.ProcessEnv;
  /** How nginx runs (the operating guide's site block, say). @default test/support/nginx.ts's own config */
  readonly nginx?: NginxOptions;
}): Promise<Fleet> {
  const seedPath = join(options.dir, 'fleet.seed.json');
  await writeFile(seedPath, JSON.stringify(options.seed));
  const names = 'abcdefgh'.slice(0, options.count ?? 3).split('');
  const { store, env } = options;
  const first = await startReplica({ name: names[0]!, store, seedPath, env });
  const rest = await Promise.all(names.slice(1).map((name) => startReplica({ name, store, seedPath, env })));
  const replicas = [first, ...rest];
  const nginx = await startNginx(
    replicas.map((r) => r.port),
    options.nginx,
  );
  return {
    replicas,
    nginx,
    baseUrl: (slug) => `http://${slug}.localhost:${nginx.port}`,
    stop: () => nginx.stop(),
  };
}

/** Streams a replica holds, from its own `/metrics`. */
export async function streamsOn(replica: Replica): Promise<number> {
  const { text } = await fleetRequest(replica.url, { path: '/metrics' });
  return text
    .split('\n')
    .filter((line) => line.startsWith('vane_streams_open{'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/**
 * The end of a fleet spec (its `afterAll`): every process it started
 * stopped, then nginx, PostgreSQL and the temp directory; each part may be
 * missing (a `beforeAll` that failed half-way).
 */
export async function tearDownFleet(parts: {
  readonly fleet?: Fleet;
  readonly pg?: TestPostgres;
  readonly dir?: string;
}): Promise<void> {
  await killLeftovers();
  await parts.fleet?.stop();
  await parts.pg?.stop();
  if (parts.dir !== undefined) await rm(parts.dir, { recursive: true, force: true });
}

/** An HTTP answer read whole. */
export interface FleetAnswer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
}

/** One request to `origin` (`http://host:port`) with `Host: host` when given; no keep-alive, bounded. */
export function fleetRequest(
  origin: string,
  spec: { method?: string; path: string; host?: string; headers?: Record<string, string>; body?: unknown },
  timeoutMs = PROCESS_WAIT_MS,
): Promise<FleetAnswer> {
  const { hostname, port } = new URL(origin);
  const headers: Record<string, string> = { ...spec.headers };
  headers['host'] = spec.host ?? `${hostname}:${port}`;
  const payload = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body));
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: spec.method ?? 'GET', path: spec.path, headers, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`no answer to ${spec.path} from ${origin} in ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `PUT /admin/v1/services/<slug>/configs/<key>` through `origin` (a replica or the load balancer). */
export function putConfig(origin: string, slug: string, key: string, value: unknown): Promise<FleetAnswer> {
  return fleetRequest(origin, {
    method: 'PUT',
    path: `/admin/v1/services/${slug}/configs/${encodeURIComponent(key)}`,
    headers: { authorization: `Bearer ${FLEET_ADMIN_TOKEN}` },
    body: { value },
  });
}

/** `GET /v1/sync` of a service through `origin` (a replica or the load balancer). */
export function syncOf(origin: string, slug: string, key: string): Promise<FleetAnswer> {
  const { port } = new URL(origin);
  return fleetRequest(origin, {
    path: '/v1/sync',
    host: `${slug}.localhost:${port}`,
    headers: { 'x-service-api-key': key },
  });
}

/** A service snapshot's members the tests read. */
export interface SyncedSnapshot {
  readonly revision: number;
  readonly configs: Record<string, unknown>;
}

/**
 * A raw `/v1/stream` reader through the load balancer, as light as a client
 * can be: it reconnects at once with `Last-Event-ID` when its stream ends
 * (a replica killed), syncs when a `resync` names a revision it lacks or a
 * patch does not follow its own, and only ever moves forward. It records
 * what the server sent, for the tests to judge: on one connection the
 * patches must chain from the `resync` (none skipped, none twice, none out
 * of order), and a reconnect's `resync` must never name a revision older
 * than the `Last-Event-ID` it was sent.
 */
export class RawStreamClient {
  /** The revision it holds (applied from a sync or a patch). */
  revision = 0;
  /** Every revision it applied, in order. */
  readonly applied: number[] = [];
  /** What the server did wrong on a stream, in words. */
  readonly violations: string[] = [];
  /** Streams opened (the first included). */
  connections = 0;
  /** Syncs answered with a revision older than the one held (a replica behind another): not applied. */
  staleSyncs = 0;
  /** Streams that ended or failed, by the server or on the way. */
  streamEnds = 0;
  /** Statuses other than 200 answered to its streams and syncs (a 502 of nginx's own, say), in order. */
  readonly refusals: number[] = [];
  /** Every `goaway` received: on which of its connections (1 for the first) and when (ms since the epoch). */
  readonly goaways: Array<{ connection: number; at: number }> = [];
  private resyncs = 0;
  private closed = false;
  private req: ReturnType<typeof request> | undefined;
  private syncing: Promise<void> | undefined;
  private resyncAgain = false;
  private readonly waiters = new Set<() => void>();

  /**
   * @param origin - the load balancer, `http://127.0.0.1:<port>`.
   * @param headers - sent with every stream request (a test's name for the client, say).
   */
  constructor(
    private readonly origin: string,
    private readonly slug: string,
    private readonly key: string,
    private readonly headers: Readonly<Record<string, string>> = {},
  ) {}

  /**
   * Opens the stream; resolves once its first `resync` is in and the client
   * holds a revision (it is live). With `lastEventId`, the client starts as one that holds that
   * revision already (a reconnect).
   */
  async open(lastEventId?: number): Promise<void> {
    if (lastEventId !== undefined) this.revision = lastEventId;
    this.connect();
    await this.waitFor(
      () => this.resyncs > 0 && this.revision > 0,
      () => 'its first resync and sync',
      PROCESS_WAIT_MS,
    );
  }

  /** Resolves once the client holds `revision` or later; rejects after `timeoutMs`, saying where it is. */
  reach(revision: number, timeoutMs: number): Promise<void> {
    return this.waitFor(
      () => this.revision >= revision,
      () =>
        `revision ${revision} (a client stuck at ${this.revision} after ${this.connections} connections, ` +
        `${this.streamEnds} ends)`,
      timeoutMs,
    );
  }

  private waitFor(holds: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
    if (holds()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!holds()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Hangs up for good. */
  close(): void {
    this.closed = true;
    this.req?.destroy();
  }

  private connect(): void {
    if (this.closed) return;
    this.connections++;
    const { port } = new URL(this.origin);
    const lastEventId = this.revision > 0 ? this.revision : undefined;
    const headers: Record<string, string> = {
      ...this.headers,
      host: `${this.slug}.localhost:${port}`,
      accept: 'text/event-stream',
      'x-service-api-key': this.key,
    };
    if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
    let onStream: number | undefined;
    let ended = false;
    const connection = this.connections;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.streamEnds++;
      // A replica killed mid-stream, or nginx with no replica up yet: open a new stream (the balancer picks).
      if (!this.closed) setImmediate(() => this.connect());
    };
    const parser = createParser({
      onEvent: (event: EventSourceMessage) => {
        if (event.event === 'resync') {
          const named = (JSON.parse(event.data) as { revision: number }).revision;
          if (lastEventId !== undefined && named < lastEventId) {
            this.violations.push(`a resync named ${named} to a client that sent Last-Event-ID ${lastEventId}`);
          }
          onStream = named;
          this.resyncs++;
          if (named > this.revision) this.sync();
          this.wake();
        } else if (event.event === 'goaway') {
          this.goaways.push({ connection, at: Date.now() });
        } else if (event.event === 'patch') {
          const { base, revision } = JSON.parse(event.data) as { base: number; revision: number };
          if (onStream === undefined || base !== onStream) {
            this.violations.push(`a patch ${base}→${revision} on a stream at ${String(onStream)}`);
          }
          onStream = revision;
          if (revision <= this.revision) return;
          if (base === this.revision) this.apply(revision);
          else this.sync();
        }
      },
    });
    const req = request(
      { host: '127.0.0.1', port, path: '/v1/stream', headers, setHost: false, agent: false },
      (res) => {
        if (res.statusCode !== 200) this.refusals.push(res.statusCode ?? 0);
        readStream(res, (chunk) => parser.feed(chunk), end);
      },
    );
    req.on('error', end);
    req.end();
    this.req = req;
  }

  private apply(revision: number): void {
    this.revision = revision;
    this.applied.push(revision);
    this.wake();
  }

  /** One sync at a time; a sync asked for meanwhile runs after it. */
  private sync(): void {
    if (this.syncing) {
      this.resyncAgain = true;
      return;
    }
    this.syncing = (async () => {
      do {
        this.resyncAgain = false;
        try {
          const answer = await syncOf(this.origin, this.slug, this.key);
          if (answer.status !== 200) {
            this.refusals.push(answer.status);
            continue;
          }
          const { revision } = JSON.parse(answer.text) as SyncedSnapshot;
          if (revision > this.revision) this.apply(revision);
          else if (revision < this.revision) this.staleSyncs++;
        } catch {
          // The balancer's replica died under it: the stream's next resync asks again.
          this.resyncAgain = !this.closed;
        }
      } while (this.resyncAgain && !this.closed);
    })().finally(() => (this.syncing = undefined));
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * Reads a `/v1/stream` answer: its text to `onChunk` while it is a 200,
 * `end` once it is over (a refusal's body drained), whatever ended it.
 */
export function readStream(res: IncomingMessage, onChunk: (text: string) => void, end: () => void): void {
  if (res.statusCode !== 200) {
    res.resume();
    res.on('end', end);
    res.on('error', end);
    return;
  }
  res.setEncoding('utf8');
  res.on('data', onChunk);
  res.on('error', end);
  res.on('close', end);
}

/**
 * Keeps `concurrency` admin writes in flight through `origin`, each a new
 * config key, until stopped; remembers every write acknowledged with 200
 * (key, value and the revision it answered) and counts the others.
 */
export class FleetWriter {
  /** Writes answered 200: the key, its value, the revision the answer named. */
  readonly acknowledged: Array<{ key: string; value: number; revision: number }> = [];
  /** Statuses of the writes not acknowledged (503 while PostgreSQL is down, 502 from nginx with a replica gone…). */
  readonly refused: number[] = [];
  /** Writes that got no answer at all. */
  failed = 0;
  private stopped = false;
  private next = 0;
  private readonly loops: Promise<void>[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly origin: string,
    private readonly slug: string,
    private readonly prefix: string,
    concurrency = 4,
  ) {
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop());
  }

  /** Resolves once `count` more writes than now are acknowledged (bounded). */
  more(count: number, timeoutMs: number): Promise<void> {
    const target = this.acknowledged.length + count;
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.acknowledged.length < target) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `${this.acknowledged.length}/${target} writes acknowledged after ${timeoutMs} ms; ` +
              `refused: ${this.refused.join(',')}; no answer: ${this.failed}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Stops writing; resolves once the writes in flight have settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const value = this.next++;
      const key = `${this.prefix}.w${value}`;
      try {
        const answer = await putConfig(this.origin, this.slug, key, value);
        if (answer.status === 200) {
          const { revision } = JSON.parse(answer.text) as { revision: number };
          this.acknowledged.push({ key, value, revision });
          for (const waiter of [...this.waiters]) waiter();
        } else {
          this.refused.push(answer.status);
          // No hot loop against a balancer with nothing behind it: wait for the next turn of the event loop.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch {
        this.failed++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}
