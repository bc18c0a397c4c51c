import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import {
  VaneClient,
  type ChangeEvent,
  type ConfigKey,
  type ConfigOutput,
  type ConfigValue,
  type FlagKey,
  type InvalidConfig,
  type FlagState,
  type StaleState,
  type VaneClientStatus,
} from '@vane/client';
import type { ListedConfigKey, RegisteredSchema, WidenConfig } from '@vane/client/adapter';
import {
  BehaviorSubject,
  defer,
  distinctUntilChanged,
  filter,
  map,
  Observable,
  startWith,
  Subject,
  takeUntil,
} from 'rxjs';
import { jsonEqual } from '@vane/common';

/**
 * The live values of the client as RxJS observables. Every observable emits
 * the current value at once on subscription, then each change; equal values
 * are not repeated (configs compared by JSON value, so `[1, 2]` then `[1, 2]`
 * emits once). All complete when the module is destroyed.
 *
 * @example
 * ```ts
 * constructor(private readonly live: VaneObservables) {}
 * onModuleInit() {
 *   this.live.config$('db.pool.max', 10).subscribe((max) => this.pool.resize(max));
 * }
 * ```
 */
/** Keys readable with a JSON-typed result: any string, unless the registered schema is strict. */
type UnlistedKey = RegisteredSchema extends { readonly strict: true } ? never : string;

@Injectable()
export class VaneObservables implements OnModuleDestroy {
  readonly #changes = new Subject<ChangeEvent>();
  readonly #invalid = new Subject<InvalidConfig>();
  readonly #destroyed = new Subject<void>();
  readonly #status: BehaviorSubject<VaneClientStatus>;
  readonly #unsubscribe: Array<() => void>;

  /**
   * Every change event of the client (configs, flags, secrets), as the
   * client reports them: `{ kind, key, oldValue, newValue, revision }`.
   * Secret events carry `{ type, version }`, never a value.
   */
  readonly changes$: Observable<ChangeEvent>;

  constructor(private readonly client: VaneClient) {
    this.#status = new BehaviorSubject(client.status);
    this.#unsubscribe = [
      client.onChange((event) => this.#changes.next(event)),
      client.onStatusChange((status) => this.#status.next(status)),
      client.onInvalid((invalid) => this.#invalid.next(invalid)),
    ];
    this.changes$ = this.#changes.asObservable().pipe(takeUntil(this.#destroyed));
    this.invalid$ = this.#invalid.asObservable().pipe(takeUntil(this.#destroyed));
  }

  /**
   * A config's value: now, then on every change. A missing (or deleted) key
   * emits `defaultValue` (`undefined` when none is given).
   */
  config$<K extends ListedConfigKey<RegisteredSchema>>(key: K): Observable<ConfigOutput<RegisteredSchema, K>>;
  config$<K extends ListedConfigKey<RegisteredSchema>>(
    key: K,
    defaultValue: Exclude<ConfigOutput<RegisteredSchema, K>, undefined>,
  ): Observable<Exclude<ConfigOutput<RegisteredSchema, K>, undefined>>;
  config$<T extends ConfigValue = ConfigValue>(key: UnlistedKey): Observable<T | undefined>;
  config$<T extends ConfigValue>(key: UnlistedKey, defaultValue: T): Observable<WidenConfig<T>>;
  config$(key: ConfigKey<RegisteredSchema>, defaultValue?: unknown): Observable<unknown> {
    const read = (): unknown => {
      const lookup = this.client.configLookup(key);
      return lookup.found ? lookup.value : defaultValue;
    };
    return defer(() =>
      this.changes$.pipe(
        filter((e) => e.kind === 'config' && e.key === key),
        map(read),
        startWith(read()),
        distinctUntilChanged<unknown>(jsonEqual),
      ),
    );
  }

  /** Every config, as the client's immutable map: now, then once per snapshot change that touches configs. */
  configs$(): Observable<ReadonlyMap<string, ConfigValue>> {
    return defer(() =>
      this.changes$.pipe(
        filter((e) => e.kind === 'config'),
        map(() => this.client.configs()),
        startWith(this.client.configs()),
        // The client hands out the same map until the next change: one emission per revision.
        distinctUntilChanged(),
      ),
    );
  }

  /** A flag's state (`defined`, `active`): now, then on every change. */
  flag$(key: FlagKey<RegisteredSchema>): Observable<FlagState> {
    return defer(() =>
      this.changes$.pipe(
        filter((e) => e.kind === 'flag' && e.key === key),
        map(() => this.client.flagState(key)),
        startWith(this.client.flagState(key)),
        distinctUntilChanged((a, b) => a.defined === b.defined && a.active === b.active),
      ),
    );
  }

  /**
   * Configs that fail the app's `schema`, as they arrive (once per key and
   * bad value): `{ key, issues, revision, keptLastValid }`, never the value.
   * Readers keep the key's last valid value. Emits nothing without a schema.
   */
  readonly invalid$: Observable<InvalidConfig>;

  /**
   * Whether the live stream is connected (`false` while the client polls,
   * after a billing halt, with `stream: false`): now, then on every change
   * the client reports.
   */
  connected$(): Observable<boolean> {
    return this.#sample((status) => status.connected);
  }

  /** Whether the client is halted on a 402 (billing overdue): now, then on every change. */
  billingOverdue$(): Observable<boolean> {
    return this.#sample((status) => status.billingOverdue);
  }

  /**
   * While the client serves its last-known-good backup (it started during an
   * outage), why and since which save; `null` once it is fresh: now, then on
   * every change.
   */
  stale$(): Observable<StaleState | null> {
    return defer(() =>
      this.#status.pipe(
        map((status) => status.stale ?? null),
        distinctUntilChanged(),
        takeUntil(this.#destroyed),
      ),
    );
  }

  #sample(read: (status: VaneClientStatus) => boolean): Observable<boolean> {
    return defer(() => this.#status.pipe(map(read), distinctUntilChanged(), takeUntil(this.#destroyed)));
  }

  /** Completes every observable and detaches from the client. */
  onModuleDestroy(): void {
    this.#unsubscribe.forEach((unsubscribe) => unsubscribe());
    this.#destroyed.next();
    this.#status.complete();
    this.#destroyed.complete();
    this.#changes.complete();
    this.#invalid.complete();
  }
}
