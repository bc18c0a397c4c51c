import { VaneClient, type ConfigValue, type SecretType, type Transport, type VaneLogger } from '@vane/client';
import type { TransportRequest, TransportResponse } from '@vane/client/adapter';
import type { VaneModuleOptions } from '../interfaces/vane-module-options.interface.js';
import { createVaneClient } from '../vane-client.provider.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from '../vane.constants.js';

/** A secret of the testing backend: a string is a text secret. */
export type VaneTestingSecret = string | { readonly type: SecretType; readonly value: string };

/** An A/B answer of the testing backend: fixed, or computed from the user. */
export type VaneTestingAbRule =
  boolean | ((user: { readonly userId: string; readonly attributes: Readonly<Record<string, string>> }) => boolean);

/** The fixed values a testing backend starts with. */
export interface VaneTestingValues {
  /** Configs, by key. @default {} */
  configs?: Record<string, ConfigValue>;
  /** Flags, by key: `true` is active. @default {} */
  flags?: Record<string, boolean>;
  /** Secrets, by key: a string is a text secret; `{ type: 'file', value }` a file secret. @default {} */
  secrets?: Record<string, VaneTestingSecret>;
  /** A/B answers by flag key; a flag without a rule answers its own state. @default {} */
  ab?: Record<string, VaneTestingAbRule>;
  /** The service kind the backend reports (`frontend` refuses secrets). @default 'backend' */
  serviceKind?: string;
  /** Clients of this backend use a public key (`svp_…`): secrets are refused. @default false */
  publicKey?: boolean;
}

/** Options of {@link VaneTestingBackend.createClient}. */
export interface VaneTestingClientOptions {
  /** Where the client logs. @default warnings and errors to `console` */
  logger?: VaneLogger;
  /** Directory for file secrets. @default a fresh temporary directory, removed on close */
  secretsDir?: string;
}

/**
 * The module options a test keeps while a testing backend serves Vane: those
 * that shape how the app behaves rather than where the values come from.
 */
export type VaneTestingSettings = Pick<
  VaneModuleOptions,
  | 'abContext'
  | 'flagException'
  | 'startupCheck'
  | 'mirrorToConfigService'
  | 'logger'
  | 'secretsDir'
  | 'consistentReads'
  | 'exceptionFilter'
  | 'useGlobalInterceptor'
>;

/**
 * What {@link VaneTestingBackend.override} needs of a builder: Nest's
 * `TestingModuleBuilder` (`Test.createTestingModule(…)`) has it.
 *
 * @typeParam B - the builder, returned by each override.
 */
export interface VaneOverridableBuilder<B> {
  /** Replaces a provider by token. */
  overrideProvider(token: unknown): {
    useValue(value: unknown): B;
    useFactory(options: { factory: (logger: VaneLogger) => unknown; inject?: unknown[] }): B;
  };
}

/** One `evaluate-ab` call the backend answered. */
export interface VaneTestingAbCall {
  readonly keys: readonly string[];
  readonly userId: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** The base URL of every testing client (no request leaves the process). */
const TESTING_BASE_URL = 'http://vane-testing.localhost';

/** The key of a testing client: public (`svp_`, no secrets) or secret. @internal */
export function testingApiKey(publicKey: boolean | undefined): string {
  return publicKey ? 'svp_vane_testing_public' : 'svs_vane_testing_secret';
}

/** The module options of Vane served by a testing backend. @internal */
export function testingModuleOptions(apiKey: string, settings: VaneTestingSettings): VaneModuleOptions {
  return {
    baseUrl: TESTING_BASE_URL,
    apiKey,
    ...(settings.abContext && { abContext: settings.abContext }),
    ...(settings.flagException !== undefined && { flagException: settings.flagException }),
    ...(settings.startupCheck !== undefined && { startupCheck: settings.startupCheck }),
    ...(settings.mirrorToConfigService !== undefined && { mirrorToConfigService: settings.mirrorToConfigService }),
    ...(settings.logger !== undefined && { logger: settings.logger }),
    ...(settings.consistentReads !== undefined && { consistentReads: settings.consistentReads }),
    ...(settings.exceptionFilter !== undefined && { exceptionFilter: settings.exceptionFilter }),
    ...(settings.useGlobalInterceptor !== undefined && { useGlobalInterceptor: settings.useGlobalInterceptor }),
  };
}

/** The `VaneClient` factory of a module served by `backend` (inject `VANE_LOGGER`). @internal */
export function testingClientFactory(
  backend: VaneTestingBackend,
  options: VaneModuleOptions,
  secretsDir: string | undefined,
): (logger: VaneLogger) => Promise<VaneClient> {
  return (logger) =>
    createVaneClient(options, logger, () =>
      backend.createClient({ logger, ...(secretsDir !== undefined && { secretsDir }) }),
    );
}

/** An answer of the backend; like every answer of a Vane service, it carries `Vane-Protocol: 1`. */
function response(status: number, body: string, headers: Record<string, string> = {}): TransportResponse {
  const bytes = new TextEncoder().encode(body);
  const all: Record<string, string> = { 'vane-protocol': '1', ...headers };
  return {
    status,
    header: (name) => all[name.toLowerCase()],
    body: (async function* () {
      if (bytes.length > 0) yield bytes;
    })(),
    text: async () => body,
    discard: async () => undefined,
  };
}

/**
 * The in-memory service behind `VaneTestingModule`: it answers the real
 * `VaneClient` through the client's transport seam, so tests exercise the
 * same client code as production, with no network. Change values at run
 * time with its setters: each one syncs the client before it resolves, so
 * observables, guards and `@Secret()` see the change at once.
 */
export class VaneTestingBackend {
  readonly #configs = new Map<string, ConfigValue>();
  readonly #flags = new Map<string, boolean>();
  readonly #secrets = new Map<string, { type: SecretType; value: string; version: number }>();
  readonly #ab = new Map<string, VaneTestingAbRule>();
  readonly #abCalls: VaneTestingAbCall[] = [];
  #serviceKind: string;
  readonly #apiKey: string;
  #revision = 1;
  #client: VaneClient | undefined;

  /** The transport to give the client. */
  readonly transport: Transport = {
    request: async (req) => this.#answer(req),
    close: async () => undefined,
  };

  /** @param values - the starting values. */
  constructor(values: VaneTestingValues = {}) {
    for (const [k, v] of Object.entries(values.configs ?? {})) this.#configs.set(k, v);
    for (const [k, v] of Object.entries(values.flags ?? {})) this.#flags.set(k, v);
    for (const [k, v] of Object.entries(values.secrets ?? {}))
      this.#secrets.set(k, { ...(typeof v === 'string' ? { type: 'text' as const, value: v } : v), version: 1 });
    for (const [k, v] of Object.entries(values.ab ?? {})) this.#ab.set(k, v);
    this.#serviceKind = values.serviceKind ?? 'backend';
    this.#apiKey = testingApiKey(values.publicKey);
  }

  /**
   * A real `VaneClient` served by this backend (no stream, no network), its
   * initial sync done. Give it to a test module in place of the real one:
   * `.overrideProvider(VaneClient).useFactory({ factory: () => backend.createClient() })`.
   * Its cache of A/B answers is off (`abCache: false`): {@link setAb} changes
   * answers at once, and every request's evaluation reaches the backend, so
   * {@link abCalls} counts one call per request.
   */
  async createClient(options: VaneTestingClientOptions = {}): Promise<VaneClient> {
    const client = await VaneClient.create({
      baseUrl: TESTING_BASE_URL,
      apiKey: this.#apiKey,
      transport: this.transport,
      stream: false,
      ttlMs: 24 * 60 * 60 * 1000,
      abCache: false,
      ...(options.logger !== undefined && { logger: options.logger }),
      ...(options.secretsDir !== undefined && { secretsDir: options.secretsDir }),
    });
    this.attach(client);
    return client;
  }

  /**
   * Puts this backend in place of Vane in a testing module built from your
   * unchanged `AppModule`: the module's options and its client are replaced,
   * so the app's own options (a `forRootAsync` factory reading
   * `ConfigService.getOrThrow('VANE_BASE_URL')`, say) are never built, and
   * nothing goes to the network. Give again, in `settings`, what your options
   * set that the test needs (`abContext`…). Use the backend's setters to
   * change values while the test runs.
   *
   * @param builder - `Test.createTestingModule({ imports: [AppModule] })`.
   * @param settings - the app's module options the test keeps.
   * @returns the builder, to `.compile()`.
   *
   * @example
   * ```ts
   * const backend = new VaneTestingBackend({ flags: { 'new-checkout': true } });
   * const moduleRef = await backend.override(Test.createTestingModule({ imports: [AppModule] })).compile();
   * ```
   */
  override<B extends VaneOverridableBuilder<B>>(builder: B, settings: VaneTestingSettings = {}): B {
    const options = testingModuleOptions(this.#apiKey, settings);
    return builder
      .overrideProvider(VANE_MODULE_OPTIONS)
      .useValue(options)
      .overrideProvider(VaneClient)
      .useFactory({ factory: testingClientFactory(this, options, settings.secretsDir), inject: [VANE_LOGGER] });
  }

  /** Every `evaluate-ab` call answered so far (to assert batching). */
  get abCalls(): readonly VaneTestingAbCall[] {
    return this.#abCalls;
  }

  /** Connects the backend to the client it serves, so setters sync it (the last client created wins). */
  attach(client: VaneClient): void {
    this.#client = client;
  }

  /** Sets a config and syncs the client. */
  setConfig(key: string, value: ConfigValue): Promise<void> {
    this.#configs.set(key, value);
    return this.#changed();
  }

  /** Deletes a config and syncs the client. */
  deleteConfig(key: string): Promise<void> {
    this.#configs.delete(key);
    return this.#changed();
  }

  /** Turns a flag on or off (creating it) and syncs the client. */
  setFlag(key: string, active: boolean): Promise<void> {
    this.#flags.set(key, active);
    return this.#changed();
  }

  /** Deletes a flag and syncs the client. */
  deleteFlag(key: string): Promise<void> {
    this.#flags.delete(key);
    return this.#changed();
  }

  /** Sets a secret (a new version) and syncs the client. */
  setSecret(key: string, value: string, type: SecretType = 'text'): Promise<void> {
    this.#secrets.set(key, { type, value, version: (this.#secrets.get(key)?.version ?? 0) + 1 });
    return this.#changed();
  }

  /** Deletes a secret and syncs the client. */
  deleteSecret(key: string): Promise<void> {
    this.#secrets.delete(key);
    return this.#changed();
  }

  /** Sets the A/B answer of a flag (no sync needed: the testing client does not cache A/B answers). */
  setAb(key: string, rule: VaneTestingAbRule): void {
    this.#ab.set(key, rule);
  }

  async #changed(): Promise<void> {
    this.#revision += 1;
    if (this.#client !== undefined && !this.#client.closed) await this.#client.sync();
  }

  #snapshot(): string {
    const flags = Object.fromEntries(
      [...this.#flags].map(([k, on]) => [k, { is_enabled: on, starts_at: null, ends_at: null, is_active: on }]),
    );
    const secrets = Object.fromEntries(
      [...this.#secrets].map(([k, s]) => [k, { type: s.type, value: s.value, version: s.version }]),
    );
    const service = { slug: 'vane-testing', kind: this.#serviceKind };
    return JSON.stringify({
      service,
      revision: this.#revision,
      configs: Object.fromEntries(this.#configs),
      flags,
      ...(this.#serviceKind === 'frontend' ? {} : { secrets }),
    });
  }

  async #answer(req: TransportRequest): Promise<TransportResponse> {
    const path = new URL(req.url).pathname;
    const json = { 'content-type': 'application/json' };
    if (req.method === 'GET' && path === '/v1/sync') {
      const etag = `"r${this.#revision}"`;
      if (req.headers['if-none-match'] === etag) return response(304, '', { etag });
      return response(200, this.#snapshot(), { ...json, etag });
    }
    if (req.method === 'POST' && path === '/v1/flags/evaluate-ab') {
      const body = JSON.parse(req.body ?? '{}') as {
        keys: string[];
        user_id: string;
        attributes: Record<string, string>;
      };
      const call = { keys: body.keys, userId: body.user_id, attributes: body.attributes };
      this.#abCalls.push(call);
      const results = Object.fromEntries(
        body.keys.map((key) => {
          const rule = this.#ab.get(key);
          const on =
            (this.#flags.get(key) ?? false) &&
            (rule === undefined ? true : typeof rule === 'function' ? rule(call) : rule);
          return [key, on];
        }),
      );
      return response(200, JSON.stringify({ results }), json);
    }
    const secret = /^\/v1\/secrets\/([^/]+)$/.exec(path);
    if (secret && req.method === 'PUT') {
      const key = decodeURIComponent(secret[1]!);
      const body = JSON.parse(req.body ?? '{}') as { value: string; type?: SecretType };
      const version = (this.#secrets.get(key)?.version ?? 0) + 1;
      this.#secrets.set(key, { type: body.type ?? 'text', value: body.value, version });
      this.#revision += 1;
      return response(200, JSON.stringify({ key, type: body.type ?? 'text', version }), json);
    }
    if (secret && req.method === 'DELETE') {
      const key = decodeURIComponent(secret[1]!);
      if (!this.#secrets.delete(key))
        return response(404, JSON.stringify({ error: 'not_found', message: 'no such secret' }), json);
      this.#revision += 1;
      return response(204, '');
    }
    return response(
      404,
      JSON.stringify({ error: 'not_found', message: `the testing backend does not serve ${req.method} ${path}` }),
      json,
    );
  }
}
