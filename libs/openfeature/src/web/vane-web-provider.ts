/**
 * Vane as an OpenFeature provider for the web SDK (`@openfeature/web-sdk`,
 * and `@openfeature/react-sdk` on top of it), on a `@vane/browser` client:
 * evaluations are synchronous reads of the client's state; the context's
 * `targetingKey` and string attributes are the A/B user.
 *
 * @packageDocumentation
 */
import {
  ErrorCode,
  OpenFeatureEventEmitter,
  ProviderEvents,
  StandardResolutionReasons,
  type EvaluationContext,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from '@openfeature/web-sdk';
import { VaneBrowserClient, type VaneBootstrap, type VaneBrowserOptions, type VaneUpdate } from '@vane/browser';
import { abTesting } from '@vane/browser/ab';
import { abContextOf } from '../ab-context.js';
import { jsonTypeOf } from '../json-type.js';

/** Options of a {@link VaneWebProvider}: a client of yours, or the options of one the provider owns. */
export type VaneWebProviderOptions = {
  /**
   * Boolean flags resolved to the A/B answer for the context's user
   * (`abFlag`) instead of the flag's `is_active`. A client of yours needs the
   * A/B plug-in (`ab: abTesting()` of `@vane/browser/ab`); one the provider
   * creates gets it. @default none
   */
  readonly abKeys?: readonly string[];
} & (
  | {
      /** A client you own (with the A/B plug-in when `abKeys` is set): `initialize()` starts it, `onClose()` leaves it open. */
      readonly client: VaneBrowserClient;
    }
  | {
      /** Options of a client the provider creates, starts and closes. */
      readonly options: VaneBrowserOptions;
      /** A server's bootstrap to start from. @default none */
      readonly bootstrap?: VaneBootstrap;
    }
);

/**
 * The OpenFeature web provider. Emits `ConfigurationChanged` (with the
 * keys) once per revision and when A/B answers arrive, `Stale` when the
 * client's values may be behind, and `Ready` when they are current again.
 *
 * @example
 * ```ts
 * await OpenFeature.setProviderAndWait(new VaneWebProvider({ options: { baseUrl, apiKey: 'svp_…' } }));
 * await OpenFeature.setContext({ targetingKey: 'u-8812', country: 'DE' });
 * ```
 */
export class VaneWebProvider implements Provider {
  /** The provider's name. */
  readonly metadata = { name: 'Vane (web)' } as const;
  /** A provider of the web SDK. */
  readonly runsOn = 'client';
  /** `ConfigurationChanged`, `Stale`, `Ready`. */
  readonly events = new OpenFeatureEventEmitter();
  /** The client the provider reads. */
  readonly client: VaneBrowserClient;
  readonly #own: boolean;
  readonly #ab: ReadonlySet<string>;
  #unsubscribe: (() => void) | undefined;
  #stale = false;

  /** @param options - see {@link VaneWebProviderOptions}. */
  constructor(options: VaneWebProviderOptions) {
    this.#own = !('client' in options);
    this.#ab = new Set(options.abKeys ?? []);
    this.client =
      'client' in options
        ? options.client
        : new VaneBrowserClient({
            ...options.options,
            ...(options.bootstrap && { bootstrap: options.bootstrap }),
            // The A/B plug-in only when A/B answers are read: a provider without `abKeys` bundles none of it.
            ...(this.#ab.size > 0 && !options.options.ab && { ab: abTesting() }),
          });
  }

  /** Takes the context's user, starts the client, and relays its updates as provider events. */
  async initialize(context?: EvaluationContext): Promise<void> {
    if (context) this.#setUser(context);
    this.#unsubscribe ??= this.client.subscribe((update) => this.#relay(update));
    await this.client.start();
  }

  /** The context changed: the client's user follows; A/B answers for `abKeys` are asked before it resolves. */
  async onContextChange(_oldContext: EvaluationContext, newContext: EvaluationContext): Promise<void> {
    this.#setUser(newContext);
    if (this.#ab.size > 0 && this.client.status.ready)
      await this.client.evaluateAb([...this.#ab]).catch(() => undefined);
  }

  /** Stops relaying; closes the client if the provider created it. */
  async onClose(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#own) this.client.close();
  }

  /** A flag's `is_active`, or the A/B answer for the context's user for a key in `abKeys`. */
  resolveBooleanEvaluation(flagKey: string, defaultValue: boolean): ResolutionDetails<boolean> {
    if (!this.client.keys().flags.includes(flagKey)) return this.#missing(flagKey, defaultValue, 'flag');
    if (this.#ab.has(flagKey))
      return this.#resolved(this.client.abFlag(flagKey, defaultValue), StandardResolutionReasons.TARGETING_MATCH);
    const value = this.client.flag(flagKey, defaultValue);
    return this.#resolved(value, value ? StandardResolutionReasons.STATIC : StandardResolutionReasons.DISABLED);
  }

  /** A string config. */
  resolveStringEvaluation(flagKey: string, defaultValue: string): ResolutionDetails<string> {
    return this.#config(flagKey, defaultValue, 'string');
  }

  /** A number config. */
  resolveNumberEvaluation(flagKey: string, defaultValue: number): ResolutionDetails<number> {
    return this.#config(flagKey, defaultValue, 'number');
  }

  /** An array or `null` config (Vane config values are never objects). */
  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T): ResolutionDetails<T> {
    const value = this.client.config(flagKey);
    if (value === undefined) return this.#missing(flagKey, defaultValue, 'config');
    const type = jsonTypeOf(value);
    if (type !== 'array' && type !== 'null') return this.#mismatch(flagKey, defaultValue, 'an array or null', type);
    return this.#resolved(value as T, StandardResolutionReasons.STATIC);
  }

  #config<T extends string | number>(key: string, defaultValue: T, type: 'string' | 'number'): ResolutionDetails<T> {
    const value = this.client.config(key);
    if (value === undefined) return this.#missing(key, defaultValue, 'config');
    const got = jsonTypeOf(value);
    if (got !== type) return this.#mismatch(key, defaultValue, `a ${type}`, got);
    return this.#resolved(value as T, StandardResolutionReasons.STATIC);
  }

  #resolved<T>(value: T, reason: string): ResolutionDetails<T> {
    return { value, reason, flagMetadata: { revision: this.client.status.revision } };
  }

  #missing<T>(key: string, defaultValue: T, what: 'flag' | 'config'): ResolutionDetails<T> {
    const ready = this.client.status.ready;
    return {
      value: defaultValue,
      reason: StandardResolutionReasons.ERROR,
      errorCode: ready ? ErrorCode.FLAG_NOT_FOUND : ErrorCode.PROVIDER_NOT_READY,
      errorMessage: ready ? `no ${what} "${key}" in the service's snapshot` : 'the Vane client holds no values yet',
      flagMetadata: { revision: this.client.status.revision },
    };
  }

  #mismatch<T>(key: string, defaultValue: T, expected: string, got: string): ResolutionDetails<T> {
    return {
      value: defaultValue,
      reason: StandardResolutionReasons.ERROR,
      errorCode: ErrorCode.TYPE_MISMATCH,
      errorMessage: `config "${key}" is ${got === 'array' || got === 'object' ? 'an' : 'a'} ${got}, not ${expected}`,
      flagMetadata: { revision: this.client.status.revision },
    };
  }

  #setUser(context: EvaluationContext): void {
    // The context's user matters to A/B answers only: without `abKeys`, the client needs no user (nor the plug-in).
    if (this.#ab.size === 0) return;
    const ab = abContextOf(context);
    // A context the service would refuse (a non-string attribute) leaves the user unset: A/B answers are then the defaults.
    this.client.setUser(ab?.ok ? ab.context : undefined);
  }

  #relay(update: VaneUpdate): void {
    const keys = [...update.flags, ...update.configs];
    if (keys.length > 0 || update.ab)
      this.events.emit(ProviderEvents.ConfigurationChanged, {
        flagsChanged: update.ab ? [...keys, ...this.#ab] : keys,
      });
    const stale = this.client.status.stale;
    if (stale !== this.#stale) {
      this.#stale = stale;
      this.events.emit(stale ? ProviderEvents.Stale : ProviderEvents.Ready);
    }
  }
}
