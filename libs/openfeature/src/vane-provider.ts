import {
  ErrorCode,
  OpenFeatureEventEmitter,
  StandardResolutionReasons,
  type EvaluationContext,
  type Hook,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import { VaneClient, WorkloadIdentityCredentials, type VaneClientOptions } from '@vane/client';
import { ClientClosedError, InvalidArgumentError } from '@vane/client/errors';
import { AbBatcher } from './ab-batcher.js';
import { abContextOf } from './ab-context.js';
import { ClientEventBridge } from './client-events.bridge.js';
import { jsonTypeOf } from './json-type.js';
import { describeError, failed, flagEvaluationOf, resolved, vaneCodeOf } from './resolution.js';
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
 * With OpenTelemetry (the client's `telemetry` option), every evaluation of
 * a ready provider is a `feature_flag.evaluation` event on the active span
 * (an A/B one recorded by the client's `evaluateAb()`); the value is
 * recorded only when it is a boolean or a number.
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
  #bridge: ClientEventBridge | undefined;
  /** Counts `onClose()` calls: a client created by an `initialize()` that a close overtook is closed at once. */
  #generation = 0;

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
    if (this.#given !== undefined) {
      if (this.#given.closed) throw new InvalidArgumentError('the VaneClient given to VaneProvider is closed');
      this.#attach(this.#given);
      return;
    }
    const generation = this.#generation;
    const client = await VaneClient.create(this.#watchSessions(this.#options!));
    if (generation !== this.#generation) {
      await client.close();
      throw new ClientClosedError('VaneProvider was closed while it initialized');
    }
    this.#attach(client);
  }

  /**
   * Stops listening to the client and fails A/B evaluations not yet sent.
   * Closes the client only if this provider created it.
   */
  async onClose(): Promise<void> {
    this.#generation++;
    const client = this.#client;
    this.#client = undefined;
    this.#bridge?.close();
    this.#bridge = undefined;
    this.#batcher?.cancel(new ClientClosedError());
    this.#batcher = undefined;
    if (client !== undefined && client !== this.#given) await client.close();
  }

  /**
   * A Vane flag: `is_active` with reason `STATIC` (on) or `DISABLED` (off);
   * per user (`TARGETING_MATCH`) when `abFlags` selects it and the context
   * has a `targetingKey`; off (`false`, `DISABLED`, nothing sent) when `abFlags`
   * selects it and the context has none: an anonymous user, as in every Vane
   * adapter. `FLAG_NOT_FOUND` for a flag the snapshot does not
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
      return this.#recorded(
        client,
        flagKey,
        context,
        failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, `flag "${flagKey}" is not defined`, { revision }),
      );
    }
    if (!this.#isAbFlag(flagKey)) {
      const reason = state.active ? StandardResolutionReasons.STATIC : StandardResolutionReasons.DISABLED;
      return this.#recorded(client, flagKey, context, resolved(state.active, reason, revision));
    }
    const ab = abContextOf(context);
    // Anonymous (no targetingKey): an A/B flag is off, nothing is sent, as in every Vane adapter.
    if (ab === null)
      return this.#recorded(client, flagKey, context, resolved(false, StandardResolutionReasons.DISABLED, revision));
    if (!ab.ok)
      return this.#recorded(
        client,
        flagKey,
        context,
        failed(defaultValue, ErrorCode.INVALID_CONTEXT, ab.message, { revision }),
      );
    // From here the client's evaluateAb records the decision (or its failure), once the answer is in.
    try {
      const value = await this.#batcher!.evaluate(flagKey, ab.context, ab.batchKey);
      return resolved(value, StandardResolutionReasons.TARGETING_MATCH, client.revision);
    } catch (error) {
      if (isSessionExpired(error)) this.#bridge?.sessionExpired(error);
      const code = vaneCodeOf(error);
      return failed(defaultValue, ErrorCode.GENERAL, `A/B evaluation failed: ${describeError(error)}`, {
        revision: client.revision,
        ...(code === undefined ? {} : { vaneErrorCode: code }),
      });
    }
  }

  /**
   * A Vane config holding a string (reason `STATIC`); `TYPE_MISMATCH` for another JSON type.
   *
   * @param context - its `targetingKey` is the event's `feature_flag.context.id` with `telemetry: { recordUserId: true }`.
   */
  resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext = {},
  ): Promise<ResolutionDetails<string>> {
    return Promise.resolve(this.#config(flagKey, defaultValue, 'string', context));
  }

  /**
   * A Vane config holding a number (reason `STATIC`); `TYPE_MISMATCH` for another JSON type.
   *
   * @param context - its `targetingKey` is the event's `feature_flag.context.id` with `telemetry: { recordUserId: true }`.
   */
  resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext = {},
  ): Promise<ResolutionDetails<number>> {
    return Promise.resolve(this.#config(flagKey, defaultValue, 'number', context));
  }

  /**
   * A Vane config holding an object or an array (reason `STATIC`, frozen); `TYPE_MISMATCH` otherwise.
   *
   * @param context - its `targetingKey` is the event's `feature_flag.context.id` with `telemetry: { recordUserId: true }`.
   */
  resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext = {},
  ): Promise<ResolutionDetails<T>> {
    return Promise.resolve(this.#config(flagKey, defaultValue, 'object', context));
  }

  #config<T extends JsonValue>(
    key: string,
    defaultValue: T,
    type: ConfigType,
    context: EvaluationContext,
  ): ResolutionDetails<T> {
    const client = this.#client;
    if (client === undefined) return this.#notReady(defaultValue);
    const lookup = client.configLookup(key);
    const revision = client.revision;
    if (!lookup.found) {
      const message = `config "${key}" is not defined`;
      return this.#recorded(
        client,
        key,
        context,
        failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, message, { revision }),
      );
    }
    const actual = jsonTypeOf(lookup.value);
    const matches = type === 'object' ? actual === 'object' || actual === 'array' : actual === type;
    if (!matches) {
      const message = `config "${key}" holds ${article(actual)}, not ${article(type)}`;
      return this.#recorded(client, key, context, failed(defaultValue, ErrorCode.TYPE_MISMATCH, message, { revision }));
    }
    return this.#recorded(
      client,
      key,
      context,
      resolved(lookup.value as T, StandardResolutionReasons.STATIC, revision),
    );
  }

  /**
   * Records a decision the provider makes itself (a flag without the A/B
   * add-on, a config) as a `feature_flag.evaluation` span event; returns it.
   */
  #recorded<T extends JsonValue>(
    client: VaneClient,
    key: string,
    context: EvaluationContext,
    details: ResolutionDetails<T>,
  ): ResolutionDetails<T> {
    const userId = typeof context.targetingKey === 'string' ? context.targetingKey : undefined;
    client.telemetry.recordFlagEvaluation(flagEvaluationOf(key, details, userId));
    return details;
  }

  #notReady<T>(defaultValue: T): ResolutionDetails<T> {
    return failed(defaultValue, ErrorCode.PROVIDER_NOT_READY, 'the Vane provider is not initialized, or closed', {});
  }

  #attach(client: VaneClient): void {
    this.#client = client;
    this.#batcher = new AbBatcher((keys, context) => client.evaluateAb(keys, context));
    this.#bridge = new ClientEventBridge(client, this.events);
  }

  /** Client options whose credentials report session expiry to this provider. */
  #watchSessions(options: VaneClientOptions): VaneClientOptions {
    // The bridge is attached only after the initial sync: an expiry during it fails initialize() instead.
    const observer: SessionObserver = {
      expired: (error) => this.#bridge?.sessionExpired(error),
      renewed: () => this.#bridge?.sessionRenewed(),
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
}

/** `a string`, `an object`: the type names of messages with their article. */
function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
