import { Inject, Injectable, type NestInterceptor, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { VanePinInterceptor } from './vane-pin.interceptor.js';
import { VaneRequestPins } from './vane-request-pins.service.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_MODULE_OPTIONS } from './vane.constants.js';

/** Where `@UseInterceptors()` keeps its list (`@nestjs/common`'s `INTERCEPTORS_METADATA`; not in its public entry). */
const INTERCEPTORS_METADATA = '__interceptors__';

/** `@WebSocketGateway()`'s marker (`@nestjs/websockets`' `GATEWAY_METADATA`, read here without importing the optional peer). */
const GATEWAY_METADATA = 'websockets:is_gateway';

/** An interceptor entry of `@UseInterceptors()`: a class, or an instance. */
type InterceptorEntry = Type<NestInterceptor> | NestInterceptor;

/**
 * One revision per WebSocket message without a decorator on the gateway.
 * Nest applies no app-wide interceptor to gateways (their context creator
 * is built without the app's config), so the module's `VanePinInterceptor`
 * would not run around a gateway's handlers and services they call would
 * read live. Built with the module, before the app connects its gateways,
 * this puts this app's interceptor first on every gateway class (an
 * instance: Nest resolves classes only among the injectables it scanned).
 * Each app replaces the previous app's, so an app started after another in
 * the same process (tests) pins through its own client. A gateway that
 * names `VanePinInterceptor` itself is left as it is; with
 * `useGlobalInterceptor: false` no gateway gets one from the module.
 * @internal
 */
@Injectable()
export class VaneGatewayPins {
  constructor(
    modules: ModulesContainer,
    pins: VaneRequestPins,
    @Inject(VANE_MODULE_OPTIONS) options: VaneModuleOptions,
  ) {
    const ours = pins.enabled && options.useGlobalInterceptor !== false ? new VanePinInterceptor(pins) : undefined;
    for (const module of modules.values()) {
      for (const wrapper of module.providers.values()) {
        const type = wrapper.metatype;
        if (typeof type !== 'function' || Reflect.getMetadata(GATEWAY_METADATA, type) !== true) continue;
        const current = (Reflect.getMetadata(INTERCEPTORS_METADATA, type) ?? []) as InterceptorEntry[];
        if (current.includes(VanePinInterceptor)) continue;
        const others = current.filter((entry) => !(entry instanceof VanePinInterceptor));
        Reflect.defineMetadata(INTERCEPTORS_METADATA, ours ? [ours, ...others] : others, type);
      }
    }
  }
}
