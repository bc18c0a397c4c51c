/**
 * The history of a fleet under faults, and the checker that judges it: every
 * request a client made and its answer (writes, syncs, stream events), the
 * faults injected and when, and the state each replica ended with. The
 * checker (`fleet-history-check.ts`) holds the fleet to its promises;
 * `fleet-history-report.ts` writes the history and the verdict for people.
 *
 * Times are milliseconds since the history began, on one clock.
 *
 * @packageDocumentation
 */

/** A write a client sent, and what came of it. */
export interface WriteRecord {
  /** The client's name (one request in flight per client). */
  readonly client: string;
  /** Where it was sent: a replica's name, or `lb` for the load balancer. */
  readonly via: string;
  readonly service: string;
  /** A key no other write uses, so the final state tells whether this write landed. */
  readonly key: string;
  readonly value: number;
  readonly startMs: number;
  readonly endMs: number;
  /** The HTTP status; 0 when no answer came (the connection failed). */
  readonly status: number;
  /** The answer's `error` member, when it had one. */
  readonly error?: string;
  /** The revision a 200 answer named. */
  readonly revision?: number;
  /**
   * Through the load balancer: the replicas that handled it, in order (more
   * than one when the balancer passed it on after one failed, having sent it).
   */
  readonly upstreams?: readonly string[];
}

/**
 * One attempt of a secret set (`PUT /v1/secrets/{key}` with a service's
 * secret key), and what came of it. A writer sets each key once, to a value
 * no other set uses; when an attempt's outcome is unknown (no answer, or
 * `504 commit_outcome_unknown`) it sends the same set again, the set being
 * idempotent: each retry is its own record, with the key and value of the
 * first and the next {@link SecretWriteRecord.attempt} number.
 */
export interface SecretWriteRecord {
  /** The writer's name (one request in flight per writer). */
  readonly client: string;
  /** Where it was sent: a replica's name, or `lb` for the load balancer. */
  readonly via: string;
  readonly service: string;
  /** A key no other set uses (its retries aside), so the final state tells whether it landed. */
  readonly key: string;
  /** A test value the writer made up for this key alone (never a real secret). */
  readonly value: string;
  /** 1 for the first attempt of the key; a retry of the same set counts on: 2, 3… */
  readonly attempt: number;
  /**
   * Sent again though an earlier attempt was answered 200, as a client whose answer was lost on its way back
   * would (possibly through another replica): the set is idempotent, so it answers the version the set made.
   */
  readonly replay?: boolean;
  readonly startMs: number;
  readonly endMs: number;
  /** The HTTP status; 0 when no answer came (the connection failed, or the writer's bound passed). */
  readonly status: number;
  /** The answer's `error` member, when it had one. */
  readonly error?: string;
  /** The version a 200 answer named. */
  readonly version?: number;
  /** Through the load balancer: the replicas that handled it, in order (see {@link WriteRecord.upstreams}). */
  readonly upstreams?: readonly string[];
}

/**
 * One attempt of a secret delete (`DELETE /v1/secrets/{key}` with a service's secret key) of a key its writer
 * set earlier and was answered 200 for, and what came of it. An attempt whose outcome is unknown (no answer, or
 * a 5xx but `503 store_unavailable`) is sent again: each retry is its own record, with the next
 * {@link SecretDeleteRecord.attempt} number. A retry answered 404 after an unknown outcome is success: the
 * earlier attempt deleted it.
 */
export interface SecretDeleteRecord {
  /** The writer's name (one request in flight per writer). */
  readonly client: string;
  /** Where it was sent: a replica's name, or `lb` for the load balancer. */
  readonly via: string;
  readonly service: string;
  /** A key the writer set (and was answered 200 for) before this delete began. */
  readonly key: string;
  /** 1 for the first attempt; a retry after an unknown outcome counts on: 2, 3… */
  readonly attempt: number;
  readonly startMs: number;
  readonly endMs: number;
  /** The HTTP status (204 deleted, 404 not there); 0 when no answer came. */
  readonly status: number;
  /** The answer's `error` member, when it had one. */
  readonly error?: string;
  /** Through the load balancer: the replicas that handled it, in order (see {@link WriteRecord.upstreams}). */
  readonly upstreams?: readonly string[];
}

/** A `/v1/sync` a client sent. */
export interface SyncRecord {
  readonly client: string;
  readonly via: string;
  readonly service: string;
  readonly startMs: number;
  readonly endMs: number;
  /** 200, 304, another status, or 0 when no answer came. */
  readonly status: number;
  /** The revision of a 200's body. */
  readonly revision?: number;
  /** The ETag of a 200 or a 304. */
  readonly etag?: string;
  /** For a 304: the revision of the snapshot whose ETag the client sent. */
  readonly heldRevision?: number;
  /** The secrets a 200's body served (a sync with the secret key): key → version. */
  readonly secrets?: Readonly<Record<string, number>>;
}

/** What a stream client saw: a connection opened (with its status), a `resync` or a `patch`. */
export type StreamEvent =
  | { readonly kind: 'open'; readonly atMs: number; readonly status: number; readonly lastEventId?: number }
  | { readonly kind: 'end'; readonly atMs: number }
  | { readonly kind: 'resync'; readonly atMs: number; readonly revision: number }
  | { readonly kind: 'patch'; readonly atMs: number; readonly base: number; readonly revision: number };

/** One stream client: what it saw, in order, over all its connections. */
export interface StreamRecord {
  readonly client: string;
  readonly via: string;
  readonly service: string;
  readonly events: readonly StreamEvent[];
}

/** A fault injected. `target` names the replica it hit; none for the database's. */
export interface FaultRecord {
  readonly kind:
    | 'kill9'
    | 'sigstop'
    | 'postgres-down'
    | 'listen-cut'
    | 'rolling-restart'
    | 'root-key-rotation'
    | 'data-key-rotation';
  /** The replica it hit (for a rotation: the one it was sent through). */
  readonly target?: string;
  /** For a data-key rotation: the service whose data key was rotated. */
  readonly service?: string;
  readonly startMs: number;
  /** When the replica (or the database) was back: restarted and listening, continued, started. */
  readonly endMs: number;
}

/** What a replica served of a service at the end, once writes stopped and the fleet settled. */
export interface FinalState {
  readonly replica: string;
  readonly service: string;
  readonly revision: number;
  readonly etag: string;
  readonly configs: Readonly<Record<string, unknown>>;
  /** The secrets it served (read by a sync with the service's secret key): key → value and version. */
  readonly secrets: Readonly<Record<string, FinalSecret>>;
}

/** A secret as a replica served it at the end. */
export interface FinalSecret {
  readonly value: string;
  readonly version: number;
}

/** Everything recorded in one run. */
export interface FleetHistory {
  /** The seed of the fault schedule: `VANE_FAULT_SEED=<seed>` replays it. */
  readonly seed: number;
  readonly writes: readonly WriteRecord[];
  /** Every attempt of a secret set, retries included. */
  readonly secretWrites: readonly SecretWriteRecord[];
  /** Every attempt of a secret delete, retries included. */
  readonly secretDeletes: readonly SecretDeleteRecord[];
  readonly syncs: readonly SyncRecord[];
  readonly streams: readonly StreamRecord[];
  readonly faults: readonly FaultRecord[];
  readonly finals: readonly FinalState[];
}

/** `12.345 s`. */
export function fmt(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}
