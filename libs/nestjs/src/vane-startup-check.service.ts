import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { VaneClient, type VaneLogger } from '@vane/client';
import { VaneStartupCheckError, type VaneStartupFinding } from './errors/vane-startup-check.error.js';
import { FeatureFlagRequirement } from './feature-flag.metadata.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';
import { paramsOf } from './utils/param-metadata.js';

/** A decorator use the startup check found. */
interface DecoratorKeyUse {
  readonly kind: 'flag' | 'secret';
  readonly key: string;
  readonly where: string;
  readonly file?: boolean;
  /** For a flag: evaluated for the requesting user (`{ ab: true }`), through `@FeatureFlag()` or `@Flag()`. */
  readonly ab?: '@FeatureFlag' | '@Flag';
}

/**
 * The startup check: once the app is initialised, every key named in
 * `@FeatureFlag()`, `@Flag()` and `@Secret()` in every controller and
 * provider is looked up in the snapshot, so a typo shows in the startup log
 * (by name, never a value) rather than on the first request. `@Secret()`
 * under a public key or a `frontend` service is reported the same way, and so
 * is an A/B flag (`{ ab: true }`) in a module with no `abContext`. With
 * `startupCheck: 'throw'` any finding stops the start.
 */
@Injectable()
export class VaneStartupCheck implements OnApplicationBootstrap {
  constructor(
    private readonly client: VaneClient,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(VANE_MODULE_OPTIONS) private readonly options: VaneModuleOptions,
    @Inject(VANE_LOGGER) private readonly logger: VaneLogger,
  ) {}

  /** Runs the check (unless `startupCheck: 'off'`). */
  onApplicationBootstrap(): void {
    const mode = this.options.startupCheck ?? 'log';
    if (mode === 'off') return;
    const findings = this.check();
    const unreadable = this.#secretsUnreadable();
    if (unreadable !== undefined && !findings.some((f) => f.kind === 'secrets-unreadable'))
      this.logger.info?.(`connected to "${this.client.serviceSlug}": ${unreadable}`);
    for (const finding of findings) {
      if (finding.kind === 'secrets-unreadable') this.logger.error(finding.message);
      else this.logger.warn(finding.message);
    }
    if (findings.length > 0 && mode === 'throw') throw new VaneStartupCheckError(findings);
  }

  /** Every finding, without logging. */
  check(): VaneStartupFinding[] {
    const uses = this.uses();
    const findings: VaneStartupFinding[] = [];
    const unreadable = this.#secretsUnreadable();
    for (const use of uses) {
      if (use.kind === 'flag') {
        if (use.ab !== undefined && this.options.abContext === undefined) {
          findings.push({
            kind: 'ab-context-missing',
            key: use.key,
            where: use.where,
            message: `${use.ab}('${use.key}', { ab: true }) in ${use.where} needs the requesting user, and the module has no abContext option: the default reads the id of request.user, so unless your auth sets request.user every request is anonymous and the flag is off for it${use.ab === '@FeatureFlag' ? ' (the route answers 404)' : ''}; set abContext in the module's options to a function (ctx) => ({ userId, attributes }) or undefined, or to defaultVaneContextFactory when your auth sets request.user`,
          });
        }
        if (!this.client.flagState(use.key).defined) {
          findings.push({
            kind: 'unknown-flag',
            key: use.key,
            where: use.where,
            message: `unknown flag "${use.key}" in ${use.where}: the snapshot of "${this.client.serviceSlug}" has no such flag (a typo, or not created yet); the route answers as if it were off`,
          });
        }
        continue;
      }
      if (unreadable !== undefined) {
        findings.push({
          kind: 'secrets-unreadable',
          key: use.key,
          where: use.where,
          message: `@Secret('${use.key}') in ${use.where} cannot work: ${unreadable}; every request to it will fail with a 500`,
        });
        continue;
      }
      const info = this.client.secretInfo(use.key);
      const wanted = use.file ? 'file' : 'text';
      if (info === null) {
        findings.push({
          kind: 'unknown-secret',
          key: use.key,
          where: use.where,
          message: `unknown secret "${use.key}" in ${use.where}: the snapshot of "${this.client.serviceSlug}" has no such secret (a typo, or not created yet)`,
        });
      } else if (info.type !== wanted) {
        findings.push({
          kind: 'unknown-secret',
          key: use.key,
          where: use.where,
          message: `secret "${use.key}" in ${use.where} is a ${info.type} secret, but @Secret() asks for a ${wanted} secret${use.file ? '' : ' (add { file: true } to get its path)'}`,
        });
      }
    }
    return findings;
  }

  /** Why this client can never read secrets (public key, frontend service), or undefined. */
  #secretsUnreadable(): string | undefined {
    // Only the refusals that never go away: secrets missing from a stale start come with the first sync.
    switch (this.client.secretReadRefusal()?.code) {
      case 'VANE_PUBLIC_KEY_SECRET_ACCESS':
        return 'the client uses a public key (svp_…), which never receives secrets';
      case 'VANE_FRONTEND_SECRET_READ':
        return `the service "${this.client.serviceSlug}" is of kind "frontend", which never holds secrets`;
      default:
        return undefined;
    }
  }

  /** Every `@FeatureFlag()`, `@Flag()` and `@Secret()` key in the app, with where it is used. */
  uses(): DecoratorKeyUse[] {
    const uses: DecoratorKeyUse[] = [];
    const seen = new Set<Function>();
    for (const wrapper of [...this.discovery.getControllers(), ...this.discovery.getProviders()]) {
      const cls: unknown = wrapper.metatype;
      if (typeof cls !== 'function' || wrapper.inject || seen.has(cls) || cls.prototype === undefined) continue;
      seen.add(cls);
      const name = cls.name || 'anonymous class';
      const onClass = this.reflector.get(FeatureFlagRequirement, cls);
      if (onClass) for (const key of onClass.keys) uses.push(flagUse(key, name, onClass.ab, '@FeatureFlag'));
      for (const method of this.scanner.getAllMethodNames(cls.prototype as object)) {
        const where = `${name}.${method}`;
        const handler: unknown = (cls.prototype as Record<string, unknown>)[method];
        if (typeof handler === 'function') {
          const onMethod = this.reflector.get(FeatureFlagRequirement, handler);
          if (onMethod) for (const key of onMethod.keys) uses.push(flagUse(key, where, onMethod.ab, '@FeatureFlag'));
        }
        for (const param of paramsOf(cls, method)) {
          uses.push(
            param.kind === 'secret'
              ? { kind: 'secret', key: param.key, where, file: param.options.file === true }
              : flagUse(param.key, where, param.options.ab, '@Flag'),
          );
        }
      }
    }
    return uses;
  }
}

function flagUse(
  key: string,
  where: string,
  ab: boolean | undefined,
  decorator: '@FeatureFlag' | '@Flag',
): DecoratorKeyUse {
  return ab === true ? { kind: 'flag', key, where, ab: decorator } : { kind: 'flag', key, where };
}
