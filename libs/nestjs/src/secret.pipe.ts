import { Injectable, Logger, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { VaneClient } from '@vane/client';
import { SecretUnavailableException, type SecretUnavailableReason } from './errors/secret-unavailable.exception.js';
import type { SecretOptions } from './interfaces/secret-options.interface.js';

/** What `@Secret()` hands to its pipe. @internal */
export interface SecretParamData extends SecretOptions {
  readonly key: string;
}

/**
 * Resolves a `@Secret()` parameter from the client's cache on every request,
 * so a rotated secret is injected on the next request. Param decorators
 * cannot inject; this pipe can, which is why `@Secret()` uses it.
 */
@Injectable()
export class SecretPipe implements PipeTransform<unknown, string | undefined> {
  readonly #logger = new Logger('Vane');

  constructor(private readonly client: VaneClient) {}

  /**
   * Returns the secret's value (or file path), `undefined` if optional and
   * absent, or logs why it cannot and throws a `SecretUnavailableException`
   * (a generic 500 for the caller).
   */
  transform(_value: unknown, metadata: ArgumentMetadata): string | undefined {
    const { key, file = false, optional = false } = metadata.data as unknown as SecretParamData;
    if (this.client.keyType === 'pk') throw this.#unavailable(key, 'public-key', file);
    if (this.client.serviceKind === 'frontend') throw this.#unavailable(key, 'frontend-service', file);
    const value = file ? this.client.secretFile(key) : this.client.secret(key);
    if (value !== null) return value;
    if (optional) return undefined;
    throw this.#unavailable(key, 'absent', file);
  }

  #unavailable(key: string, reason: SecretUnavailableReason, file: boolean): SecretUnavailableException {
    const exception = new SecretUnavailableException(key, reason, file);
    this.#logger.error(`@Secret() failed a request (500): ${exception.detail}`);
    return exception;
  }
}
