import 'reflect-metadata';
import { UseInterceptors, type NestInterceptor } from '@nestjs/common';
import type { ModulesContainer } from '@nestjs/core';
import { WebSocketGateway } from '@nestjs/websockets';
import type { VaneRequestPins } from './vane-request-pins.service.js';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VaneGatewayPins } from './vane-gateway-pins.js';
import { VanePinInterceptor } from './vane-pin.interceptor.js';

const interceptorsOf = (type: object): unknown[] => (Reflect.getMetadata('__interceptors__', type) ?? []) as unknown[];
const modulesWith = (...types: unknown[]): ModulesContainer =>
  new Map([['m', { providers: new Map(types.map((t, i) => [i, { metatype: t }])) }]]) as unknown as ModulesContainer;
const pins = (enabled: boolean): VaneRequestPins => ({ enabled }) as unknown as VaneRequestPins;

class Other implements NestInterceptor {
  intercept(): never {
    throw new Error('not called');
  }
}

describe('VaneGatewayPins', () => {
  it("puts this app's pin interceptor first on every gateway, replacing an earlier app's; leaves other providers", () => {
    @UseInterceptors(Other)
    @WebSocketGateway()
    class Gateway {}
    class Service {}
    new VaneGatewayPins(modulesWith(Gateway, Service, undefined), pins(true), {} as VaneModuleOptions);
    const first = interceptorsOf(Gateway);
    expect(first).toEqual([expect.any(VanePinInterceptor), Other]);
    expect(interceptorsOf(Service)).toEqual([]);
    new VaneGatewayPins(modulesWith(Gateway), pins(true), {} as VaneModuleOptions);
    const second = interceptorsOf(Gateway);
    expect(second).toHaveLength(2);
    expect(second[0]).not.toBe(first[0]);
  });

  it('with consistentReads: false, takes an earlier app’s interceptor away', () => {
    @WebSocketGateway()
    class Gateway {}
    new VaneGatewayPins(modulesWith(Gateway), pins(true), {} as VaneModuleOptions);
    new VaneGatewayPins(modulesWith(Gateway), pins(false), {} as VaneModuleOptions);
    expect(interceptorsOf(Gateway)).toEqual([]);
  });

  it('with useGlobalInterceptor: false, gives no gateway an interceptor and takes an earlier app’s away', () => {
    @UseInterceptors(Other)
    @WebSocketGateway()
    class Gateway {}
    new VaneGatewayPins(modulesWith(Gateway), pins(true), {} as VaneModuleOptions);
    new VaneGatewayPins(modulesWith(Gateway), pins(true), { useGlobalInterceptor: false } as VaneModuleOptions);
    expect(interceptorsOf(Gateway)).toEqual([Other]);
  });

  it('leaves a gateway that names VanePinInterceptor itself as it is', () => {
    @UseInterceptors(VanePinInterceptor)
    @WebSocketGateway()
    class Gateway {}
    new VaneGatewayPins(modulesWith(Gateway), pins(true), {} as VaneModuleOptions);
    expect(interceptorsOf(Gateway)).toEqual([VanePinInterceptor]);
  });
});
