import { createParamDecorator } from '@nestjs/common';
import type { RegisteredSchema, SecretKey } from '@vane/client/adapter';
import type { SecretOptions } from './interfaces/secret-options.interface.js';
import { SecretPipe, type SecretParamData } from './secret.pipe.js';
import { assertKey, recordParam } from './utils/param-metadata.js';

/** `string`, or `never` once `vane types` registered each secret's type. */
type UncheckedSecretKey = SecretKey<RegisteredSchema, 'text'> & SecretKey<RegisteredSchema, 'file'>;

const SecretParam = createParamDecorator((_data: SecretParamData, _context): undefined => undefined);

/**
 * Injects a secret into a handler parameter, read from the client's cache on
 * every request (a rotation reaches the next request): the value of a text
 * secret, or with `{ file: true }` the path of a file secret. An absent
 * secret fails the request with a 500 naming the key (never a value) unless
 * `{ optional: true }`, which injects `undefined`. The startup check reports
 * unknown keys, and `@Secret()` under a public key or a frontend service,
 * before the first request.
 *
 * @example
 * ```ts
 * @Post('pay')
 * pay(@Secret('stripe.api_key') stripeKey: string, @Secret('tls.client_pem', { file: true }) pemPath: string) { … }
 * ```
 */
export function Secret(
  key: SecretKey<RegisteredSchema, 'text'>,
  options?: SecretOptions & { readonly file?: false },
): ParameterDecorator;
/** Injects the path of a file secret's file (see the overload above). */
export function Secret(
  key: SecretKey<RegisteredSchema, 'file'>,
  options: SecretOptions & { readonly file: true },
): ParameterDecorator;
/**
 * Options only known at run time: any key without registered secret types
 * (as before), none with them, since the key's type cannot be checked.
 */
export function Secret(key: UncheckedSecretKey, options?: SecretOptions): ParameterDecorator;
export function Secret(key: string, options: SecretOptions = {}): ParameterDecorator {
  assertKey('Secret', key);
  const data: SecretParamData = { ...options, key };
  const decorate = SecretParam(data, SecretPipe);
  return (target, propertyKey, index) => {
    recordParam(target, propertyKey, { kind: 'secret', key, index, options });
    decorate(target, propertyKey, index);
  };
}
