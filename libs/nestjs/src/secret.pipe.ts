import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { VaneClient } from '@vane/client';
import { SecretUnavailableException } from './errors/secret-unavailable.exception.js';
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
  constructor(private readonly client: VaneClient) {}

  /** Returns the secret's value (or file path), `undefined` if optional and absent, or throws a `SecretUnavailableException`. */
  transform(_value: unknown, metadata: ArgumentMetadata): string | undefined {
    const { key, file = false, optional = false } = metadata.data as unknown as SecretParamData;
    if (this.client.keyType === 'pk') throw new SecretUnavailableException(key, 'public-key', file);
    if (this.client.serviceKind === 'frontend') throw new SecretUnavailableException(key, 'frontend-service', file);
    const value = file ? this.client.secretFile(key) : this.client.secret(key);
    if (value !== null) return value;
    if (optional) return undefined;
    throw new SecretUnavailableException(key, 'absent', file);
  }
}
