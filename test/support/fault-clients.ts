/**
 * The clients of the fault schedule (test/fleet-faults.slow-spec.ts): each
 * keeps one request in flight and records every request and answer into a
 * {@link FleetHistory} for the checker of `@vane/test-harness`. Writers put
 * a new config key each time, secret writers a new secret key (retrying a
 * set whose outcome they cannot know); sync readers send the ETag they hold; stream
 * readers reconnect with `Last-Event-ID` and record every `resync` and
 * `patch`.
 */
import { request, type ClientRequest } from 'node:http';
import { createParser } from 'eventsource-parser';
import {
  definitelyRefused,
  outcomeUnknown,
  type SecretDeleteRecord,
  type SecretWriteRecord,
  type StreamEvent,
  type SyncRecord,
  type WriteRecord,
} from '@vane/test-harness';
import { FLEET_ADMIN_TOKEN, fleetRequest, readStream, type FleetAnswer } from './fleet.js';

/** A client's bound on one request: past it, the request counts as unanswered (status 0). */
const REQUEST_MS = 10_000;
/** Pause between two requests of one client, in ms: a bounded client, not a flood of a 2-core machine. */
const PACE_MS = 40;
/** Pause before a stream reconnects after its connection ended or failed, in ms. */
const RECONNECT_MS = 100;

/** Milliseconds since the history began. */
export type HistoryClock = () => number;

/** Where a client sends its requests: a replica's name (or `lb`) and its origin. */
export interface Target {
  readonly via: string;
  readonly origin: string;
  /** For the load balancer: the replica's name behind an upstream port (its `X-Upstream-Addr` header). */
  readonly replicaAt?: (port: number) => string;
}

/** A service a client reads or writes, with the secret key that reads it. */
export interface ServiceKey {
  readonly slug: string;
  readonly key: string;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A client loop that runs until stopped; `stop()` resolves once its request in flight settled. */
abstract class Loop {
  protected stopped = false;
  private running: Promise<void> | undefined;

  /** Starts the loop. */
  start(): this {
    this.running = this.run();
    return this;
  }

  /** Stops the loop; resolves once it ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.interrupt();
    await this.running;
  }

  protected abstract run(): Promise<void>;

  /** Ends what is in flight, for a loop that holds a connection open. */
  protected interrupt(): void {}
}

/** A writer: a new key each time through its target, alternating services, each request recorded. */
abstract class WriterLoop<Service, Written> extends Loop {
  /** Writes answered 200 so far. */
  acknowledged = 0;
  /** The number of the next key. */
  protected n = 0;

  constructor(
    readonly name: string,
    protected readonly target: Target,
    protected readonly services: readonly Service[],
    protected readonly now: HistoryClock,
    protected readonly record: (write: Written) => void,
  ) {
    super();
  }
}

/** Puts a new config key through its target, one at a time, alternating services. */
export class FaultWriter extends WriterLoop<string, WriteRecord> {
  protected async run(): Promise<void> {
    while (!this.stopped) {
      const value = this.n++;
      const service = this.services[value % this.services.length]!;
      const key = `f.${this.name}.${value}`;
      const startMs = this.now();
      const { status, error, body, upstreams } = await send(this.target, 'PUT', {
        path: `/admin/v1/services/${service}/configs/${key}`,
        headers: { authorization: `Bearer ${FLEET_ADMIN_TOKEN}` },
        body: { value },
      });
      const revision = status === 200 ? Number(body['revision']) : undefined;
      this.record({
        client: this.name,
        via: this.target.via,
        service,
        key,
        value,
        startMs,
        endMs: this.now(),
        status,
        error,
        revision,
        upstreams,
      });
      if (status === 200) this.acknowledged++;
      await pause(status === 200 ? PACE_MS : 2 * PACE_MS);
    }
  }
}

/** Tries of one secret set whose outcome stays unknown, before the writer gives it up and moves on. */
const MAX_SECRET_ATTEMPTS = 30;
/** With a replay target, every this many sets answered 200 are sent once more (see `replaysThrough`). */
const REPLAY_EVERY = 3;

/**
 * Sets a new secret key through its target with the service's secret key,
 * one at a time, alternating services: `s.<writer>.<n>` to a test value no
 * other set uses. An attempt whose outcome it cannot know (no answer, a
 * `504 commit_outcome_unknown`, another 5xx but a `503 store_unavailable`, which
 * promises nothing changed) is sent again, the same key and value, the set
 * being idempotent; so is one refused after an earlier attempt's outcome was
 * unknown, until an answer settles the set (200) or a 4xx refuses it. With
 * a replay target, some sets answered 200 are sent once more, as after a
 * lost answer (see {@link FaultSecretWriter.replaysThrough}).
 */
export class FaultSecretWriter extends WriterLoop<ServiceKey, SecretWriteRecord> {
  private replayTarget: Target | undefined;
  private deleteEvery = 0;
  private recordDelete: ((attempt: SecretDeleteRecord) => void) | undefined;
  /** A key answered 200 that is due for deletion, deleted before the next set. */
  private dueForDelete: { service: ServiceKey; key: string } | undefined;
  /** Deletes answered 204 (or 404 after an attempt whose outcome was unknown) so far. */
  deleted = 0;

  /**
   * Deletes every `every`th key it set and was answered 200 for, before its next set, through its own target
   * with the service's secret key; an attempt whose outcome it cannot know is sent again (a 404 to such a retry
   * is success: the earlier attempt deleted it). Every attempt goes to `record`.
   */
  deletes(every: number, record: (attempt: SecretDeleteRecord) => void): this {
    this.deleteEvery = every;
    this.recordDelete = record;
    return this;
  }

  /**
   * Sends every {@link REPLAY_EVERY}th set answered 200 once more, at once, through `target` (another replica,
   * say, which may not have applied the set yet), as a client whose answer was lost on its way back would: the
   * set being idempotent, it answers the version the set made.
   */
  replaysThrough(target: Target): this {
    this.replayTarget = target;
    return this;
  }

  protected async run(): Promise<void> {
    while (!this.stopped) {
      const due = this.dueForDelete;
      this.dueForDelete = undefined;
      if (due !== undefined) await this.delete(due.service, due.key);
      if (this.stopped) break;
      const n = this.n++;
      const service = this.services[n % this.services.length]!;
      const key = `s.${this.name}.${n}`;
      const value = `test-value-${this.name}-${n}`;
      let unknown = false;
      let attempt = 0;
      let answered = false;
      while (attempt < MAX_SECRET_ATTEMPTS) {
        const { status, error } = await this.attempt(this.target, service, key, value, ++attempt);
        const refused = definitelyRefused({ status, error });
        unknown ||= outcomeUnknown({ status, error });
        answered = status === 200;
        const settled = answered || (status >= 400 && status < 500) || (refused && !unknown);
        if (answered && this.replayTarget !== undefined && n % REPLAY_EVERY === 0 && !this.stopped) {
          await this.attempt(this.replayTarget, service, key, value, ++attempt, true);
        }
        await pause(answered ? PACE_MS : RECONNECT_MS);
        if (settled || this.stopped) break;
      }
      if (answered && this.deleteEvery > 0 && this.acknowledged % this.deleteEvery === 0) {
        this.dueForDelete = { service, key };
      }
    }
  }

  /** Deletes `key`, sending the delete again while its outcome is unknown; each attempt recorded. */
  private async delete(service: ServiceKey, key: string): Promise<void> {
    let unknown = false;
    for (let attempt = 1; attempt <= MAX_SECRET_ATTEMPTS && !this.stopped; attempt++) {
      const startMs = this.now();
      const { status, error, upstreams } = await send(this.target, 'DELETE', {
        path: `/v1/secrets/${encodeURIComponent(key)}`,
        host: `${service.slug}.localhost:${new URL(this.target.origin).port}`,
        headers: { 'x-service-api-key': service.key },
      });
      this.recordDelete?.({
        client: this.name,
        via: this.target.via,
        service: service.slug,
        key,
        attempt,
        startMs,
        endMs: this.now(),
        status,
        error,
        upstreams,
      });
      if (status === 204 || (status === 404 && unknown)) this.deleted++;
      const refused = definitelyRefused({ status, error });
      unknown ||= outcomeUnknown({ status, error });
      await pause(status === 204 ? PACE_MS : RECONNECT_MS);
      if (status === 204 || (status >= 400 && status < 500) || (refused && !unknown)) return;
    }
  }

  /** Sends the set through `target` once, and records it. */
  private async attempt(
    target: Target,
    service: ServiceKey,
    key: string,
    value: string,
    attempt: number,
    replay?: true,
  ): Promise<{ status: number; error?: string }> {
    const startMs = this.now();
    const { status, error, body, upstreams } = await send(target, 'PUT', {
      path: `/v1/secrets/${encodeURIComponent(key)}`,
      host: `${service.slug}.localhost:${new URL(target.origin).port}`,
      headers: { 'x-service-api-key': service.key },
      body: { value, type: 'text' },
    });
    this.record({
      client: this.name,
      via: target.via,
      service: service.slug,
      key,
      value,
      attempt,
      replay,
      startMs,
      endMs: this.now(),
      status,
      error,
      version: status === 200 ? Number(body['version']) : undefined,
      upstreams,
    });
    if (status === 200 && replay === undefined) this.acknowledged++;
    return { status, error };
  }
}

/** Syncs one service through its target, sending the ETag it holds. */
export class FaultSyncReader extends Loop {
  private etag: string | undefined;
  private heldRevision: number | undefined;

  constructor(
    readonly name: string,
    private readonly target: Target,
    private readonly service: ServiceKey,
    private readonly now: HistoryClock,
    private readonly record: (sync: SyncRecord) => void,
  ) {
    super();
  }

  protected async run(): Promise<void> {
    const { port } = new URL(this.target.origin);
    while (!this.stopped) {
      const startMs = this.now();
      let status = 0;
      let revision: number | undefined;
      let etag: string | undefined;
      let secrets: Record<string, number> | undefined;
      const held = this.heldRevision;
      try {
        const answer = await fleetRequest(
          this.target.origin,
          {
            path: '/v1/sync',
            host: `${this.service.slug}.localhost:${port}`,
            headers: {
              'x-service-api-key': this.service.key,
              ...(this.etag ? { 'if-none-match': this.etag } : {}),
            },
          },
          REQUEST_MS,
        );
        status = answer.status;
        etag = typeof answer.headers.etag === 'string' ? answer.headers.etag : undefined;
        if (status === 200) {
          const body = parse(answer.text);
          revision = Number(body['revision']);
          secrets = versionsOf(body['secrets']);
          this.etag = etag;
          this.heldRevision = revision;
        }
      } catch {
        status = 0;
      }
      this.record({
        client: this.name,
        via: this.target.via,
        service: this.service.slug,
        startMs,
        endMs: this.now(),
        status,
        revision,
        etag,
        heldRevision: status === 304 ? held : undefined,
        secrets,
      });
      await pause(status === 0 ? RECONNECT_MS : PACE_MS);
    }
  }
}

/** Holds a stream of one service open through its target, reconnecting with `Last-Event-ID`. */
export class FaultStreamReader extends Loop {
  readonly events: StreamEvent[] = [];
  private revision = 0;
  private req: ClientRequest | undefined;

  constructor(
    readonly name: string,
    readonly target: Target,
    readonly service: ServiceKey,
    private readonly now: HistoryClock,
  ) {
    super();
  }

  /** The highest revision it holds. */
  get held(): number {
    return this.revision;
  }

  protected async run(): Promise<void> {
    while (!this.stopped) {
      await this.connection();
      if (!this.stopped) await pause(RECONNECT_MS);
    }
  }

  protected override interrupt(): void {
    this.req?.destroy();
  }

  /** One connection: resolves when it ends, whatever ended it. */
  private connection(): Promise<void> {
    const { port } = new URL(this.target.origin);
    const lastEventId = this.revision > 0 ? this.revision : undefined;
    return new Promise<void>((resolve) => {
      let done = false;
      const end = (): void => {
        if (done) return;
        done = true;
        this.events.push({ kind: 'end', atMs: this.now() });
        resolve();
      };
      const parser = createParser({
        onEvent: (event) => {
          if (event.event === 'resync') {
            const revision = Number((parse(event.data) as { revision?: unknown }).revision);
            this.events.push({ kind: 'resync', atMs: this.now(), revision });
            // A client syncs on a resync that names a revision it lacks: it then holds that revision.
            this.revision = Math.max(this.revision, revision);
          } else if (event.event === 'patch') {
            const body = parse(event.data) as { base?: unknown; revision?: unknown };
            const base = Number(body.base);
            const revision = Number(body.revision);
            this.events.push({ kind: 'patch', atMs: this.now(), base, revision });
            this.revision = Math.max(this.revision, revision);
          }
        },
      });
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/stream',
          setHost: false,
          agent: false,
          headers: {
            host: `${this.service.slug}.localhost:${port}`,
            accept: 'text/event-stream',
            'x-service-api-key': this.service.key,
            ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}),
          },
        },
        (res) => {
          this.events.push({ kind: 'open', atMs: this.now(), status: res.statusCode ?? 0, lastEventId });
          readStream(res, (chunk) => parser.feed(chunk), end);
        },
      );
      req.on('error', () => {
        if (!done && !this.stopped) this.events.push({ kind: 'open', atMs: this.now(), status: 0, lastEventId });
        end();
      });
      req.end();
      this.req = req;
    });
  }
}

/** What came of one request: its status (0 when no answer came), its `error`, its body's members, its upstreams. */
interface RequestOutcome {
  readonly status: number;
  readonly error?: string;
  readonly body: Record<string, unknown>;
  readonly upstreams?: string[];
}

/** One request through a target, bounded by {@link REQUEST_MS}: a failure to get an answer is status 0. */
async function send(
  target: Target,
  method: 'PUT' | 'DELETE',
  spec: { path: string; host?: string; headers: Record<string, string>; body?: unknown },
): Promise<RequestOutcome> {
  try {
    const answer = await fleetRequest(target.origin, { method, ...spec }, REQUEST_MS);
    const body = parse(answer.text);
    const error = answer.status !== 200 && typeof body['error'] === 'string' ? body['error'] : undefined;
    return { status: answer.status, error, body, upstreams: upstreamsOf(target, answer) };
  } catch {
    return { status: 0, body: {} };
  }
}

/** A snapshot's `secrets` member as key → version (none for a body without it). */
function versionsOf(secrets: unknown): Record<string, number> | undefined {
  if (typeof secrets !== 'object' || secrets === null) return undefined;
  return Object.fromEntries(
    Object.entries(secrets as Record<string, { version?: unknown }>).map(([key, s]) => [key, Number(s.version)]),
  );
}

/** Through the load balancer: the replicas that handled a request, in order (its `X-Upstream-Addr`). */
function upstreamsOf(target: Target, answer: FleetAnswer): string[] | undefined {
  const addr = answer.headers['x-upstream-addr'];
  const replicaAt = target.replicaAt;
  if (typeof addr !== 'string' || replicaAt === undefined) return undefined;
  return addr.split(',').map((a) => replicaAt(Number(a.trim().split(':').pop())));
}

function parse(text: string): Record<string, unknown> {
  try {
    const doc: unknown = JSON.parse(text);
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
