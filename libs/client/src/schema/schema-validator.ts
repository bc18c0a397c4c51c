/**
 * Checks config values against the app's schema before they go live. Runs on
 * the apply path, synchronously, and only for keys whose raw value changed, so
 * an update that touches no validated key costs one map copy.
 *
 * @packageDocumentation
 */
import { scrubValue } from './scrub-value.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { jsonEqual } from '@vane/common';
import { ConfigInvalidError, InvalidArgumentError } from '../errors.js';
import { redactText } from '../util/redact.js';
import type { ConfigValue } from '@vane/client-core';
import type { InvalidConfig } from './invalid-config.js';
import type { VaneSchema } from './vane-schema.js';

/** What one validation pass produced. */
export interface ValidatedConfigs {
  /** The configs readers get: raw values, with every validated key replaced by its output (or its last valid one). */
  readonly configs: ReadonlyMap<string, unknown>;
  /** Keys that became invalid (or got another invalid value) in this pass. */
  readonly invalid: readonly InvalidConfig[];
  /** Keys that were invalid and are valid again after this pass. */
  readonly recovered: readonly string[];
}

const UNSEEN = Symbol('unseen');

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

function describeIssue(issue: StandardSchemaV1.Issue, value: unknown): string {
  const path = (issue.path ?? [])
    .map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment))
    .map(String)
    .join('.');
  const message = scrubValue(redactText(issue.message), value);
  return path === '' ? message : `${path}: ${message}`;
}

/** Validates config snapshots against a {@link VaneSchema}, remembering each key's last valid output. */
export class SchemaValidator {
  readonly #validators: ReadonlyArray<readonly [string, StandardSchemaV1]>;
  readonly #lastRaw = new Map<string, ConfigValue | undefined | typeof UNSEEN>();
  readonly #lastValid = new Map<string, unknown>();
  readonly #invalid = new Map<string, InvalidConfig>();

  /** @throws InvalidArgumentError - naming the key whose entry is not a Standard Schema validator. */
  constructor(schema: VaneSchema) {
    const configs = schema.configs ?? {};
    if (typeof configs !== 'object' || configs === null || Array.isArray(configs))
      throw new InvalidArgumentError('options.schema.configs must be an object mapping config keys to validators');
    this.#validators = Object.keys(configs).map((key) => {
      const validator: unknown = configs[key];
      const standard = (validator as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.['~standard'];
      if (typeof standard !== 'object' || standard === null || typeof standard.validate !== 'function')
        throw new InvalidArgumentError(
          `options.schema.configs[${JSON.stringify(key)}] is not a Standard Schema validator (zod, valibot, arktype, …)`,
        );
      if (standard.version !== 1)
        throw new InvalidArgumentError(
          `options.schema.configs[${JSON.stringify(key)}] implements Standard Schema version ${String(standard.version)}; Vane supports version 1`,
        );
      return [key, validator as StandardSchemaV1] as const;
    });
    for (const [key] of this.#validators) this.#lastRaw.set(key, UNSEEN);
    const flags = schema.flags;
    if (flags !== undefined && (!Array.isArray(flags) || flags.some((f) => typeof f !== 'string')))
      throw new InvalidArgumentError('options.schema.flags must be an array of flag keys (strings)');
  }

  /** The keys whose current value is invalid, with their issues. */
  get invalid(): ReadonlyMap<string, InvalidConfig> {
    return this.#invalid;
  }

  /**
   * Validates the first snapshot. Every required key must be present and valid.
   *
   * @throws ConfigInvalidError - listing every key that is missing or invalid, with its issues.
   * @throws InvalidArgumentError - when a validator is asynchronous.
   */
  initial(raw: ReadonlyMap<string, ConfigValue>, revision: number): ReadonlyMap<string, unknown> {
    const result = this.#validate(raw, revision, true);
    if (result.invalid.length > 0) throw new ConfigInvalidError(result.invalid);
    return result.configs;
  }

  /**
   * Validates an update (a new snapshot, or the result of a patch). Keys whose
   * raw value did not change since the last pass are not validated again.
   */
  update(raw: ReadonlyMap<string, ConfigValue>, revision: number): ValidatedConfigs {
    return this.#validate(raw, revision, false);
  }

  #validate(raw: ReadonlyMap<string, ConfigValue>, revision: number, initial: boolean): ValidatedConfigs {
    const invalid: InvalidConfig[] = [];
    const recovered: string[] = [];
    // Served values that differ from the raw ones (a coercion, a default, a kept last valid value, a removal).
    // Without any, readers get the raw map itself: no copy on the apply path.
    const overrides: [string, unknown][] = [];
    for (const [key, validator] of this.#validators) {
      const value = raw.get(key);
      const last = this.#lastRaw.get(key);
      if (last === UNSEEN || !(Object.is(last, value) || (value !== undefined && jsonEqual(last, value)))) {
        this.#lastRaw.set(key, value);
        const entry = this.#check(key, validator, value, revision, initial);
        if (entry === 'recovered') recovered.push(key);
        else if (entry !== undefined) invalid.push(entry);
      }
      const served = this.#lastValid.get(key);
      if (!Object.is(served, value) && !(served !== undefined && value !== undefined && jsonEqual(served, value)))
        overrides.push([key, served]);
    }
    if (overrides.length === 0) return { configs: raw, invalid, recovered };
    const configs = new Map<string, unknown>(raw);
    for (const [key, served] of overrides) {
      if (served === undefined) configs.delete(key);
      else configs.set(key, served);
    }
    return { configs, invalid, recovered };
  }

  /** Runs one validator; records the outcome. @returns the new invalid entry, `'recovered'`, or nothing. */
  #check(
    key: string,
    validator: StandardSchemaV1,
    value: ConfigValue | undefined,
    revision: number,
    initial: boolean,
  ): InvalidConfig | 'recovered' | undefined {
    const result = validator['~standard'].validate(value);
    if (isThenable(result)) {
      // Swallow the pending validation: its outcome can never be used.
      Promise.resolve(result).catch(() => undefined);
      if (initial)
        throw new InvalidArgumentError(
          `options.schema.configs[${JSON.stringify(key)}] validates asynchronously; Vane validates on the apply path, synchronously: use a synchronous schema`,
        );
      return this.#markInvalid(key, ['the validator answered asynchronously'], revision);
    }
    if (result.issues === undefined) {
      if (result.value === undefined) this.#lastValid.delete(key);
      else this.#lastValid.set(key, result.value);
      return this.#invalid.delete(key) ? 'recovered' : undefined;
    }
    const issues =
      result.issues.length > 0
        ? result.issues.map((issue) => describeIssue(issue, value))
        : ['rejected by its validator'];
    return this.#markInvalid(key, value === undefined ? ['missing (required)', ...issues] : issues, revision);
  }

  #markInvalid(key: string, issues: readonly string[], revision: number): InvalidConfig {
    const entry: InvalidConfig = { key, issues, revision, keptLastValid: this.#lastValid.has(key) };
    this.#invalid.set(key, entry);
    return entry;
  }
}
