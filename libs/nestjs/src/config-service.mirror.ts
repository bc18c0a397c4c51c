import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { VaneClient, type VaneLogger } from '@vane/client';
import { ConfigServiceMissingError } from './errors/config-service-missing.error.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';
import { loadOptionalPeer } from './utils/optional-peer.js';

/** The part of `@nestjs/config`'s `ConfigService` the mirror uses. */
interface SettableConfigService {
  set(path: string, value: unknown): void;
}

/**
 * `mirrorToConfigService: true`: copies every config into `@nestjs/config`'s
 * `ConfigService` with its `set()` (so `configService.get('db.host')` and its
 * `changes$` serve Vane's live values), at module init and on every change.
 * A deleted config is unset. `@nestjs/config` is loaded lazily, only when the
 * option is on.
 */
@Injectable()
export class ConfigServiceMirror implements OnModuleInit, OnModuleDestroy {
  #unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: VaneClient,
    private readonly moduleRef: ModuleRef,
    @Inject(VANE_MODULE_OPTIONS) private readonly options: VaneModuleOptions,
    @Inject(VANE_LOGGER) private readonly logger: VaneLogger,
  ) {}

  /** Copies the configs and subscribes to changes (when the option is on). */
  async onModuleInit(): Promise<void> {
    if (this.options.mirrorToConfigService !== true) return;
    const { ConfigService } = await loadOptionalPeer(
      '@nestjs/config',
      'mirrorToConfigService',
      () => import('@nestjs/config'),
    );
    let service: SettableConfigService;
    try {
      service = this.moduleRef.get(ConfigService, { strict: false });
    } catch {
      throw new ConfigServiceMissingError();
    }
    keepingProcessEnv(() => {
      for (const [key, value] of this.client.configs()) service.set(key, value);
    });
    this.#unsubscribe = this.client.onChange((event) => {
      if (event.kind !== 'config') return;
      keepingProcessEnv(() => service.set(event.key, event.newValue));
    });
    this.logger.info?.(`mirroring ${this.client.configs().size} configs into ConfigService`);
  }

  /** Stops mirroring. */
  onModuleDestroy(): void {
    this.#unsubscribe?.();
  }
}

/**
 * Runs `action` (calls to `ConfigService.set()`), then puts `process.env` back
 * as it was. `set()` also writes `process.env[key] = String(value)` (and may
 * rewrite variables of .env files that reference it): a service config named
 * `PATH`, `NODE_OPTIONS` or `HTTPS_PROXY` would otherwise replace the
 * process's own variable (inherited by child processes), and deleting it
 * would delete that variable. `ConfigService.get()` reads its internal
 * config first, so it still serves the mirrored value; a config set to
 * `undefined` (deleted) falls back to the environment's own value, if any.
 */
function keepingProcessEnv(action: () => void): void {
  const before = { ...process.env };
  try {
    action();
  } finally {
    for (const key of Object.keys(process.env))
      if (!Object.prototype.hasOwnProperty.call(before, key)) delete process.env[key];
    for (const [key, value] of Object.entries(before)) if (process.env[key] !== value) process.env[key] = value;
  }
}
