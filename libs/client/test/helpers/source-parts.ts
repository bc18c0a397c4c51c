import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource, SourceEvent } from '../../src/data-sources/data-source.js';
import { SnapshotSync } from '../../src/data-sources/snapshot-sync.js';
import { ServiceHttp } from '../../src/http/service-http.js';
import { USER_AGENT } from '../../src/http/version.js';
import { resolveOptions, type ResolvedOptions, type VaneClientOptions } from '../../src/options.js';
import { FileSecretStore } from '../../src/secrets/file-secrets.js';
import { StateStore } from '../../src/store/state-store.js';
import { FakeTransport, json, MemoryLogger, type FakeHandler, type FakeResponse } from './fake-transport.js';
import { ManualTimers } from './manual-timers.js';

export const UNIT_SK = 'svs_unit_test_secret_key_0001';

/** A `/v1/sync` body at `revision`, with one config and one flag. */
export function syncBody(revision: number, configs: Record<string, unknown> = { 'db.pool.max': revision }): unknown {
  return {
    service: { slug: 'shop', kind: 'backend' },
    revision,
    configs,
    flags: { beta: { is_enabled: true, starts_at: null, ends_at: null, is_active: true } },
    secrets: {},
  };
}

/** A 200 `/v1/sync` answer at `revision`, with its ETag. */
export function syncAnswer(revision: number): FakeResponse {
  return json(200, syncBody(revision), { etag: `"r${revision}"` });
}

/**
 * The parts below the client façade, wired as the client wires them, over a
 * fake transport and hand-driven timers: options, HTTP, the store and the
 * snapshot sync. Every event the sync reports is recorded, then handed to
 * `onEvent` (the supervisor, in its spec).
 */
export class SourceParts {
  readonly timers = new ManualTimers();
  readonly logger = new MemoryLogger();
  readonly transport: FakeTransport;
  readonly options: ResolvedOptions;
  readonly http: ServiceHttp;
  readonly store: StateStore;
  readonly sync: SnapshotSync;
  readonly controller = new AbortController();
  /** Every event reported on the channel, in order. */
  readonly events: SourceEvent[] = [];
  /** Where reported events go after being recorded. */
  onEvent: (event: SourceEvent) => void = () => undefined;
  readonly #dir = mkdtempSync(join(tmpdir(), 'vane-source-spec-'));

  constructor(handler: FakeHandler, overrides: Partial<VaneClientOptions> = {}) {
    this.transport = new FakeTransport(handler);
    this.options = resolveOptions({
      baseUrl: 'https://shop.vane.example',
      apiKey: UNIT_SK,
      transport: this.transport,
      timers: this.timers,
      clock: this.timers,
      logger: this.logger,
      random: () => 0,
      ...overrides,
    });
    this.http = new ServiceHttp({
      baseUrl: this.options.baseUrl,
      transport: this.transport,
      credentials: this.options.credentials,
      timers: this.timers,
      clock: this.timers,
      timeoutMs: this.options.timeoutMs,
      userAgent: USER_AGENT,
    });
    this.store = new StateStore(new FileSecretStore(join(this.#dir, 'secrets')), this.timers, this.logger);
    this.sync = new SnapshotSync(this.http, this.store, this.controller.signal, this.logger, this.report);
  }

  /** The channel: records the event, then passes it on. */
  readonly report = (event: SourceEvent): void => {
    this.events.push(event);
    this.onEvent(event);
  };

  /** The events reported so far, by type (`failed:sync:ttl` for failures). */
  eventNames(): string[] {
    return this.events.map((e) => (e.type === 'failed' ? `failed:${e.kind}:${e.reason}` : e.type));
  }

  /** Aborts, waits for the queue, closes the store and removes its directory. */
  async close(): Promise<void> {
    this.controller.abort();
    await this.sync.idle();
    await this.store.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** A source that only records what it is told to do. */
export class RecordingSource implements DataSource {
  /** Every delay `schedule` was called with, in order. */
  readonly scheduled: number[] = [];
  stops = 0;

  schedule(delayMs: number): void {
    this.scheduled.push(delayMs);
  }

  stop(): Promise<void> {
    this.stops++;
    return Promise.resolve();
  }

  /** The last delay scheduled. */
  get last(): number | undefined {
    return this.scheduled.at(-1);
  }
}
