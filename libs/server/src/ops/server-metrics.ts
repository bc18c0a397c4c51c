import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FleetView, ReplicaInfo } from '../fleet/fleet-view.js';
import type { FleetMetrics, GoawayReason } from '../fleet/fleet-metrics.js';
import type { RouteLabel } from './route-label.js';

/** Why an answer refused a request, as `vane_refused_total` counts it. */
export type RefusalReason =
  | 'rate_limited'
  | 'quarantined'
  | 'billing_overdue'
  /** The throttle of wrong admin tokens made the address wait. */
  | 'throttled'
  | 'unauthorized';

/** What the metrics read when scraped. */
export interface ServerMetricsSources {
  /** Open streams per service slug. */
  streamsByService(): ReadonlyMap<string, number>;
  /** The replicas of the fleet, this one included. */
  readonly fleet: FleetView;
  /** Whether this replica is draining. */
  draining(): boolean;
}

/** Buckets of the latency histograms, in seconds: 1 ms to 10 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The server's Prometheus metrics (prom-client), in a registry of its own so
 * two servers in one process (tests) never share a series. The request
 * path, the stream hub and the store write to it; a store shared by
 * replicas sets the revision lag and the drift it measures.
 */
export class ServerMetrics implements FleetMetrics {
  /** Everything `/metrics` exposes. */
  readonly registry = new Registry();
  readonly #http: Counter<'route' | 'method' | 'status'>;
  readonly #httpSeconds: Histogram<'route' | 'method'>;
  readonly #patches: Counter<'service'>;
  readonly #commitToSend: Histogram;
  readonly #storeWrite: Histogram;
  readonly #refused: Counter<'reason'>;
  readonly #goaway: Counter<'reason'>;
  readonly #revisionLag: Gauge<'service'>;
  readonly #drift: Gauge<'service'>;

  /** @param sources - what the gauges read at each scrape. */
  constructor(sources: ServerMetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'vane_process_' });
    this.#http = new Counter({
      name: 'vane_http_requests_total',
      help: 'HTTP requests answered, by route (a fixed set), method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#httpSeconds = new Histogram({
      name: 'vane_http_request_duration_seconds',
      help: 'Time from a request to the end of its answer, by route and method (streams excluded: they last)',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    registerStreamsGauge(registers, sources);
    this.#patches = new Counter({
      name: 'vane_patches_sent_total',
      help: 'patch events written to streams, by service (one per stream per revision)',
      labelNames: ['service'],
      registers,
    });
    this.#commitToSend = new Histogram({
      name: 'vane_commit_to_send_seconds',
      help: 'Time from a change being committed to its patch being written to the open streams',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#storeWrite = new Histogram({
      name: 'vane_store_write_seconds',
      help: 'Time from a change being made to it being durable in the store',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#refused = new Counter({
      name: 'vane_refused_total',
      help: 'Requests refused: rate_limited, quarantined, billing_overdue, throttled (wrong admin tokens), unauthorized',
      labelNames: ['reason'],
      registers,
    });
    this.#goaway = new Counter({
      name: 'vane_goaway_sent_total',
      help: 'goaway events sent to streams, by reason (drain, rebalance)',
      labelNames: ['reason'],
      registers,
    });
    this.#revisionLag = new Gauge({
      name: 'vane_replica_revision_lag',
      help: "Revisions this replica's served revision is behind the store's latest, by service",
      labelNames: ['service'],
      registers,
    });
    this.#drift = new Gauge({
      name: 'vane_service_drift_seconds',
      help: 'How long this replica has served something other than the store holds, by service (0 when in step)',
      labelNames: ['service'],
      registers,
    });
    registerStateGauges(registers, sources);
  }

  /** Counts an answered request; `seconds` is left out for streams. */
  request(route: RouteLabel, method: string, status: number, seconds: number | undefined): void {
    const verb = KNOWN_METHODS.has(method) ? method : 'OTHER';
    this.#http.inc({ route, method: verb, status: String(status) });
    if (seconds !== undefined) this.#httpSeconds.observe({ route, method: verb }, seconds);
  }

  /** A revision's patch went to `streams` open streams, `lagMs` after its commit. */
  patchSent(service: string, streams: number, lagMs: number): void {
    if (streams > 0) this.#patches.inc({ service }, streams);
    this.#commitToSend.observe(Math.max(0, lagMs) / 1000);
  }

  /** A change became durable `ms` after it was made. */
  storeWrite(ms: number): void {
    this.#storeWrite.observe(Math.max(0, ms) / 1000);
  }

  /** A request was refused. */
  refused(reason: RefusalReason): void {
    this.#refused.inc({ reason });
  }

  /** `count` streams were sent `goaway`. */
  goaway(reason: GoawayReason, count: number): void {
    if (count > 0) this.#goaway.inc({ reason }, count);
  }

  /** Set by the store: how many revisions this replica is behind the latest committed one for `service`. */
  setRevisionLag(service: string, revisions: number): void {
    this.#revisionLag.set({ service }, revisions);
  }

  /** Set by the store's drift check: seconds this replica has differed from the store for `service`; 0 in step. */
  setDrift(service: string, seconds: number): void {
    this.#drift.set({ service }, seconds);
  }

  /** The exposition text of every metric, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The gauge of open streams per service, read at each scrape. */
function registerStreamsGauge(registers: Registry[], sources: ServerMetricsSources): void {
  new Gauge({
    name: 'vane_streams_open',
    help: 'Open /v1/stream connections, by service',
    labelNames: ['service'],
    registers,
    collect() {
      this.reset();
      for (const [service, count] of sources.streamsByService()) this.set({ service }, count);
    },
  });
}

/** The gauges of this replica's draining and of the fleet, read at each scrape. */
function registerStateGauges(registers: Registry[], sources: ServerMetricsSources): void {
  new Gauge({
    name: 'vane_draining',
    help: '1 while this replica drains its streams before exiting',
    registers,
    collect() {
      this.set(sources.draining() ? 1 : 0);
    },
  });
  // One read of the fleet serves the three gauges of a scrape (each collects on its own).
  let fleetRead: { at: number; replicas: Promise<readonly ReplicaInfo[]> } | undefined;
  const readFleet = (): Promise<readonly ReplicaInfo[]> => {
    const now = Date.now();
    if (!fleetRead || now - fleetRead.at > 1000) {
      fleetRead = { at: now, replicas: Promise.resolve().then(() => sources.fleet.replicas()) };
    }
    return fleetRead.replicas;
  };
  new Gauge({
    name: 'vane_fleet_replicas',
    help: 'Replicas of the fleet seen by this one, itself included',
    registers,
    async collect() {
      this.set((await readFleet()).length);
    },
  });
  new Gauge({
    name: 'vane_fleet_replica_streams',
    help: 'Open streams per replica of the fleet',
    labelNames: ['replica'],
    registers,
    async collect() {
      const fleet = await readFleet();
      this.reset();
      for (const replica of fleet) this.set({ replica: replica.id }, replica.streams);
    },
  });
  new Gauge({
    name: 'vane_fleet_replica_revision',
    help: 'The revision each replica serves, by service',
    labelNames: ['replica', 'service'],
    registers,
    async collect() {
      const fleet = await readFleet();
      this.reset();
      for (const replica of fleet) {
        for (const [service, revision] of Object.entries(replica.revisions)) {
          this.set({ replica: replica.id, service }, revision);
        }
      }
    },
  });
}
