import { isVaneKey } from '@vane/client/adapter';
import type { VaneParamMetadata } from '../interfaces/vane-param-metadata.interface.js';
import { VANE_PARAMS_METADATA } from '../vane.constants.js';

/** Records a `@Secret()`/`@Flag()` parameter on its method, as Nest records route arguments. @internal */
export function recordParam(target: object, propertyKey: string | symbol | undefined, param: VaneParamMetadata): void {
  if (propertyKey === undefined)
    throw new TypeError(
      `@${param.kind === 'secret' ? 'Secret' : 'Flag'}('${param.key}') decorates a method parameter, not a constructor parameter`,
    );
  const cls = target.constructor;
  const existing =
    (Reflect.getMetadata(VANE_PARAMS_METADATA, cls, propertyKey) as VaneParamMetadata[] | undefined) ?? [];
  Reflect.defineMetadata(VANE_PARAMS_METADATA, [...existing, param], cls, propertyKey);
}

/** The `@Secret()`/`@Flag()` parameters of a method, in parameter order. @internal */
export function paramsOf(cls: Function, method: string | symbol): readonly VaneParamMetadata[] {
  const params = (Reflect.getMetadata(VANE_PARAMS_METADATA, cls, method) as VaneParamMetadata[] | undefined) ?? [];
  return [...params].sort((a, b) => a.index - b.index);
}

/** Throws unless `key` is a usable flag or secret key. @internal */
export function assertKey(decorator: string, key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '')
    throw new TypeError(`@${decorator}() needs a non-empty key, got ${key === '' ? 'an empty string' : typeof key}`);
  // The key rule every adapter checks when a guard or parameter is declared (PROTOCOL §4).
  if (!isVaneKey(key)) throw new TypeError(`@${decorator}(): keys are 1 to 256 characters from [A-Za-z0-9._-]`);
}
