import {
  ErrorCode,
  OpenFeatureEventEmitter,
  ProviderEvents,
  StandardResolutionReasons,
  type EvaluationContext,
  type Hook,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import {
  ClientClosedError,
  InvalidArgumentError,
  VaneClient,
  WorkloadIdentityCredentials,
  type ChangeEvent,
  type VaneClientOptions,
} from '@vane/client';
import { AbBatcher } from './ab-batcher.js';
import { abContextOf } from './ab-context.js';
import { ProviderCondition, type Condition } from './provider-condition.js';
import { describeError, failed, jsonTypeOf, resolved, vaneCodeOf } from './resolution.js';
import { isSessionExpired, SessionWatchCredentials, type SessionObserver } from './session-watch.credentials.js';
import { abFlagPredicate, type VaneProviderOptions, type VaneProviderSettings } from './vane-provider.options.js';

/** The JSON type each non-boolean evaluation reads from a config. */
type ConfigType = 'string' | 'number' | 'object';

function isVaneClient(value: unknown): value is VaneClient {
  if (value instanceof VaneClient) return true;
  // Another copy of @vane/client (e.g. its ESM and CommonJS builds side by side) fails instanceof.
  const candidate = value as Partial<Record<keyof VaneClient, unknown>>;
  return typeof candidate.flagState === 'function' && typeof candidate.evaluateAb === 'function';
}

/**
 * Vane as an OpenFeature server provider.
 *
 * Booleans are Vane flags (`is_active`; reason `STATIC` when on, `DISABLED`
 * when defined and off); strings, numbers and objects are Vane configs of
 * that JSON type (reason `STATIC`). Flags chosen by `abFlags` are evaluated
 * per user when the context carries a `targetingKey` (reason
 * `TARGETING_MATCH`), in one `evaluate-ab` call per context and event-loop
 * turn. Secrets are never read. Every detail's `flagMetadata.revision` is
 * the snapshot revision the value came from.
 *
 * @example
 * ```ts
 * await OpenFeature.setProviderAndWait(new VaneProvider({ baseUrl, apiKey, abFlags: 'all' }));
 * const enabled = await OpenFeature.getClient().getBooleanValue('new-checkout', false, { targetingKey: userId });
 * ```
 */
export class VaneProvider implements Provider {
  /** The provider's name in OpenFeature's logs and hook contexts. */
  readonly metadata = { name: 'Vane' } as const;
  /** A server-side provider (`@openfeature/server-sdk`). */
  readonly runsOn = 'server';
  /** Provider events: `ConfigurationChanged`, `Stale`, `Ready` on recovery, `Error` on session expiry. */
  readonly events = new OpenFeatureEventEmitter();
  /** The provider adds no hooks. */
  readonly hooks: Hook[] = [];

  /** Client options when the provider creates its client; held privately, never printed. */
  readonly #options: VaneClientOptions | undefined;
  readonly #given: VaneClient | undefined;
  readonly #isAbFlag: (flagKey: string) => boolean;
  #client: VaneClient | undefined;
  #batcher: AbBatcher | undefined;
  #condition: ProviderCondition | undefined;
  #emitted: Condition = 'ready';
  #unsubscribe: (() => void)[] = [];
  #changedKeys = new Set<string>();
  #changedRevision = 0;
  #staleAtStart: NodeJS.Immediate | undefined;
  /** The session error behind the `error` condition (its message holds no credential). */
  #lastSessionError: unknown;

  /**
   * @param options - client options (plus `abFlags`): `initialize()` creates
   *   the client with its blocking initial sync, and `onClose()` closes it.
   */
  constructor(options: VaneProviderOptions);
  /**
   * @param client - a client the app already created: `initialize()` adopts
   *   it, `onClose()` leaves it open (the app closes what it created).
   * @param settings - `abFlags`.
   */
  constructor(client: VaneClient, settings?: VaneProviderSettings);
  constructor(source: VaneProviderOptions | VaneClient, settings: VaneProviderSettings = {}) {
    if (typeof source !== 'object' || source === null) {
      throw new InvalidArgumentError('VaneProvider takes client options or a VaneClient');
    }
    if (isVaneClient(source)) {
      this.#given = source;
      this.#isAbFlag = abFlagPredicate(settings.abFlags);
    } else {
      const { abFlags, ...clientOptions } = source;
      this.#options = clientOptions;
      this.#isAbFlag = abFlagPredicate(abFlags);
    }
  }

  /**
   * Creates the client and runs its blocking initial sync, or adopts the
   * client given to the constructor. OpenFeature emits `Ready` when this
   * resolves; a rejection carries the client's typed error (match on `code`).
   *
   * @throws InvalidArgumentError - the given client is already closed.
   */
  async initialize(): Promise<void> {
    if (this.#client !== undefined) return;
    let client: VaneClient;
    if (this.#given !== undefined) {
      if (this.#given.closed) throw new InvalidArgumentError('the VaneClient given to VaneProvider is closed');
      client = this.#given;
    } else {
      client = await VaneClient.create(this.#watchSessions(this.#options!));
    }
    this.#attach(client);
  }

  /**
   * Stops listening to the client and fails A/B evaluations not yet sent.
   * Closes the client only if this provider created it.
   */
  async onClose(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    if (this.#staleAtStart !== undefined) clearImmediate(this.#staleAtStart);
    this.#staleAtStart = undefined;
    this.#batcher?.cancel(new ClientClosedError());
    this.#batcher = undefined;
    this.#condition = undefined;
    this.#changedKeys = new Set();
    if (client !== undefined && client !== this.#given) await client.close();
  }

  /**
   * A Vane flag: `is_active` with reason `STATIC` (on) or `DISABLED` (off);
   * per user (`TARGETING_MATCH`) when `abFlags` selects it and the context
   * has a `targetingKey`. `FLAG_NOT_FOUND` for a flag the snapshot does not
   * define, `INVALID_CONTEXT` for a non-string attribute (nothing is sent),
   * `GENERAL` when the A/B call fails (`flagMetadata.vaneErrorCode` says why).
   */
  async resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    const client = this.#client;
    if (client === undefined) return this.#notReady(defaultValue);
    const state = client.flagState(flagKey);
    const revision = client.revision;
    if (!state.defined) {
      return failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, `flag "${flagKey}" is not defined`, { revision });
    }
    const ab = this.#isAbFlag(flagKey) ? abContextOf(context) : undefined;
    if (ab === undefined) {
      return resolved(
        state.active,
        state.active ? StandardResolutionReasons.STATIC : StandardResolutionReasons.DISABLED,
        revision,
      );
    }
    if (!ab.ok) return failed(defaultValue, ErrorCode.INVALID_CONTEXT, ab.message, { revision });
    try {
      const value = await this.#batcher!.evaluate(flagKey, ab.context, ab.batchKey);
      return resolved(value, StandardResolutionReasons.TARGETING_MATCH, client.revision);
    } catch (error) {
      if (isSessionExpired(error)) this.#sessionExpired(error);
      const code = vaneCodeOf(error);
      return failed(defaultValue, ErrorCode.GENERAL, `A/B evaluation failed: ${describeError(error)}`, {
        revision: client.revision,
        ...(code === undefined ? {} : { vaneErrorCode: code }),
      });
    }
  }

  /** A Vane config holding a string (reason `STATIC`); `TYPE_MISMATCH` for another JSON type. */
  resolveStringEvaluation(flagKey: string, defaultValue: string): Promise<ResolutionDetails<string>> {
    return Promise.resolve(this.#config(flagKey, defaultValue, 'string'));
  }

  /** A Vane config holding a number (reason `STATIC`); `TYPE_MISMATCH` for another JSON type. */
  resolveNumberEvaluation(flagKey: string, defaultValue: number): Promise<ResolutionDetails<number>> {
    return Promise.resolve(this.#config(flagKey, defaultValue, 'number'));
  }

  /** A Vane config holding an object or an array (reason `STATIC`, frozen); `TYPE_MISMATCH` otherwise. */
  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.#config(flagKey, defaultValue, 'object'));
  }

  #config<T>(key: string, defaultValue: T, type: ConfigType): ResolutionDetails<T> {
    const client = this.#client;
    if (client === undefined) return this.#notReady(defaultValue);
    const lookup = client.configLookup(key);
    const revision = client.revision;
    if (!lookup.found)
      return failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, `config "${key}" is not defined`, { revision });
    const actual = jsonTypeOf(lookup.value);
    const matches = type === 'object' ? actual === 'object' || actual === 'array' : actual === type;
    if (!matches) {
      return failed(
        defaultValue,
        ErrorCode.TYPE_MISMATCH,
        `config "${key}" holds ${article(actual)}, not ${article(type)}`,
        {
          revision,
        },
      );
    }
    return resolved(lookup.value as T, StandardResolutionReasons.STATIC, revision);
  }

  #notReady<T>(defaultValue: T): ResolutionDetails<T> {
    return failed(defaultValue, ErrorCode.PROVIDER_NOT_READY, 'the Vane provider is not initialized, or closed', {});
  }

  #attach(client: VaneClient): void {
    this.#client = client;
    this.#batcher = new AbBatcher((keys, context) => client.evaluateAb(keys, context));
    const condition = new ProviderCondition(client.status);
    this.#condition = condition;
    this.#emitted = 'ready';
    this.#unsubscribe.push(
      client.onChange((event) => this.#changed(event)),
      client.onStatusChange((status) => this.#show(condition.status(status))),
    );
    // OpenFeature emits Ready once initialize() resolves; a client adopted while billing is
    // overdue must turn Stale after that, not before.
    if (condition.current === 'stale') {
      this.#staleAtStart = setImmediate(() => {
        this.#staleAtStart = undefined;
        this.#show(condition.current);
      });
    }
  }

  /** Client options whose credentials report session expiry to this provider. */
  #watchSessions(options: VaneClientOptions): VaneClientOptions {
    const observer: SessionObserver = {
      expired: (error) => this.#sessionExpired(error),
      renewed: () => {
        if (this.#condition !== undefined) this.#show(this.#condition.session(false));
      },
    };
    if (options.credentials !== undefined) {
      return { ...options, credentials: new SessionWatchCredentials(options.credentials, observer) };
    }
    // A static key has no session; the client itself rejects options with neither.
    if (options.apiKey !== undefined || options.workloadIdentity === undefined) return options;
    const { workloadIdentity, ...rest } = options;
    return {
      ...rest,
      credentials: new SessionWatchCredentials(new WorkloadIdentityCredentials(workloadIdentity), observer),
    };
  }

  #sessionExpired(error: unknown): void {
    if (this.#condition === undefined) return;
    this.#lastSessionError = error;
    this.#show(this.#condition.session(true));
  }

  /** Emits the event of a condition change (nothing when the condition is unchanged). */
  #show(condition: Condition): void {
    if (condition === this.#emitted || this.#client === undefined) return;
    this.#emitted = condition;
    if (condition === 'error') {
      const message = describeError(this.#lastSessionError);
      this.events.emit(ProviderEvents.Error, { message, metadata: { vaneErrorCode: 'VANE_SESSION_EXPIRED' } });
    } else if (condition === 'stale') {
      const message = this.#client.billingOverdue
        ? 'VANE_BILLING_OVERDUE: background sync is halted; the last snapshot is served'
        : 'the live stream fell back to polling; values may lag by up to ttlMs';
      this.events.emit(ProviderEvents.Stale, { message, metadata: { revision: this.#client.revision } });
    } else {
      this.events.emit(ProviderEvents.Ready, { metadata: { revision: this.#client.revision } });
    }
  }

  /** Gathers the change events of one applied update into one `ConfigurationChanged`. */
  #changed(event: ChangeEvent): void {
    if (event.kind === 'secret') return;
    const first = this.#changedKeys.size === 0;
    this.#changedKeys.add(event.key);
    this.#changedRevision = event.revision;
    // The client calls listeners synchronously, once per value, for one update: a microtask sees them all.
    if (first) queueMicrotask(() => this.#emitChanged());
  }

  #emitChanged(): void {
    const keys = [...this.#changedKeys];
    this.#changedKeys = new Set();
    if (keys.length === 0 || this.#client === undefined) return;
    this.events.emit(ProviderEvents.ConfigurationChanged, {
      flagsChanged: keys,
      metadata: { revision: this.#changedRevision },
    });
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
